// ESLint 9 flat config: typescript-eslint's type-aware recommended rules over every TypeScript
// file the project compiles or tests (src, checks, lab, fuzz, benchmarks, test, vitest.config.ts) and the plain
// JavaScript scripts. Prettier owns the layout: eslint-config-prettier comes last and turns off
// every rule that would fight it.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import regexp from 'eslint-plugin-regexp';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'coverage/**', 'node_modules/**', 'fixtures/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    files: ['**/*.ts'],
    languageOptions: {
      // One program over the sources and the tests: tsconfig.test.json includes both.
      parserOptions: { project: ['./tsconfig.test.json'], tsconfigRootDir: import.meta.dirname },
      globals: globals.node,
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // `==` coerces ('0' == 0); `== null` is the one idiom kept (null or undefined).
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      // A switch over a union that forgets a member (a new status, severity or fact kind).
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      // Unused bindings are mistakes, except `_`-prefixed ones kept for a signature or a rest spread.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // Off: `async` without `await` is how an interface method (HostIO and its kin) turns a
      // synchronous throw into a rejection; no-floating-promises and no-misused-promises cover the
      // defects that matter.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // No super-linear regular expression on input (issue 19): every regex in shipped code passes
    // a static check for backtracking that grows with the input, or carries a disable comment
    // for the rule, on its line, with its reason.
    files: ['src/**/*.ts', 'checks/**/*.ts'],
    // TEMPORARY, until the branches of issue 19 are merged: these files are being rewritten by
    // other branches (segmenter: src/text/{segment,normalize,formats,analyze}.ts; evidence: the
    // kernel-log, lspci, proc-interrupts and iperf3-text parsers; src/text/text-host.ts). Their
    // flagged regexes are listed in the branch report; remove this list at the merge.
    ignores: [
      'src/text/segment.ts',
      'src/text/normalize.ts',
      'src/text/formats.ts',
      'src/text/analyze.ts',
      'src/text/text-host.ts',
      'src/parsers/kernel-log.ts',
      'src/parsers/lspci.ts',
      'src/parsers/proc-interrupts.ts',
      'src/parsers/iperf3-text.ts',
    ],
    plugins: { regexp },
    rules: {
      'regexp/no-super-linear-backtracking': 'error',
      'regexp/no-super-linear-move': 'error',
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Off in tests: vitest's asymmetric matchers (expect.any, expect.stringMatching, ...) and
      // JSON.parse of a CLI's output are `any` by design; a wrong shape fails the assertion itself.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // Plain JavaScript (scripts/*.mjs, this file): no type information to lint with.
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: globals.node },
  },
  prettier,
);
