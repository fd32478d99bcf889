/**
 * The interfaces that ethtool command lines in a text name ("ethtool -G ens16f0 rx 4096", a
 * poster's misordered "ethtool -G 4096 ens16f0", "# sudo ethtool -S eth2"): on each line that is
 * an ethtool command (after an optional prompt), the first word after the options that is no
 * ethtool keyword, number or usage placeholder and has a digit, as kernel interface names do.
 */

const MAX_CHARS = 400_000;
const MAX_NAMES = 64;
// An ethtool command line (after an optional quote mark, prompt and sudo): its option, then the rest up to a pipe.
const ETHTOOL_LINE =
  /^[ \t>]*(?:[$#%][ \t]*)?(?:sudo[ \t]+)?ethtool[ \t]+(?:(-{1,2}[A-Za-z][\w-]*)(?:[ \t]+|$))?([^\s`|;&][^\n`|;&]{0,119})?(?:[|;&][^\n]*)?$/gm;
const ETHTOOL_WORDS = new Set(
  'rx tx on off autoneg speed duplex full half combined other rx-mini rx-jumbo adaptive-rx adaptive-tx rx-usecs tx-usecs rx-frames tx-frames equal weight hfunc devname dev device ethx iface interface ifname'.split(
    ' ',
  ),
);
const INTERFACE_NAME = /^[A-Za-z][\w.@-]{0,14}$/;

/** The interfaces named by the ethtool command lines of `text`; with `options`, only by commands with one of those options ("-G", "--set-ring"). */
export function interfacesOfEthtoolCommands(text: string, options?: readonly string[]): string[] {
  const found = new Set<string>();
  for (const match of text.slice(0, MAX_CHARS).matchAll(ETHTOOL_LINE)) {
    if (options && !options.includes(match[1] ?? '')) continue;
    const name = (match[2] ?? '')
      .trim()
      .split(/[ \t]+/)
      .find((word) => !word.startsWith('-') && INTERFACE_NAME.test(word) && /\d/.test(word) && !ETHTOOL_WORDS.has(word.toLowerCase()));
    if (name) found.add(name);
    if (found.size >= MAX_NAMES) break;
  }
  return [...found];
}
