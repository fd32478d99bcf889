// The single executable must not be steered by the caller's environment (issue 18.4): Node 20's
// SEA honours NODE_OPTIONS (`--require /tmp/x.js` would run as root), and its sea-config has
// no execArgvExtension (Node >= 24 only). So the copy of node that becomes the executable gets
// the C-string names of the environment hooks it reads before any JavaScript runs blanked to
// "": getenv("") finds nothing (no variable can have an empty name), and the hook is gone.
// Only those C strings are touched: the same name inside V8's startup snapshot (a serialised
// JS string, preceded by its 32-bit length) is left alone, and each name must be found.

/** Read by node (C++) or OpenSSL at start-up: code to load (NODE_OPTIONS --require/--import, an OpenSSL engine), or a file to write. */
export const HOOK_VARIABLES = ['NODE_OPTIONS', 'NODE_REDIRECT_WARNINGS', 'OPENSSL_CONF', 'OPENSSL_MODULES', 'OPENSSL_ENGINES'];

/** Blanks each variable's NUL-terminated name in the binary; returns how many it blanked per name. */
export function blankHookVariables(binary, names = HOOK_VARIABLES) {
  const counts = {};
  for (const name of names) {
    const needle = Buffer.from(`\0${name}\0`, 'latin1');
    const v8Length = Buffer.alloc(4);
    v8Length.writeUInt32LE(name.length);
    let count = 0;
    for (let at = binary.indexOf(needle); at !== -1; at = binary.indexOf(needle, at + 1)) {
      const start = at + 1;
      // A V8 one-byte string: its length comes just before its characters.
      if (binary.subarray(start - 4, start).equals(v8Length)) continue;
      binary.fill(0, start, start + name.length);
      count += 1;
    }
    if (count === 0) throw new Error(`package: the name ${name} is not in node's binary; cannot make the executable ignore it`);
    counts[name] = count;
  }
  return counts;
}
