export { writeBundle, type WriteBundleOptions, type WriteBundleResult } from './write.js';
export { openBundle, looksLikeBundle, BundleError, type OpenedBundle } from './open.js';
export { redactSnapshot } from './redact-tree.js';
export { Redactor, type RedactionCounts } from './redact.js';
export { BUNDLE_FORMAT, bundleManifestSchema, type BundleManifest, type ManifestItem } from './manifest.js';
