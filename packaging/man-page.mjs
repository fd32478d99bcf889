// nicdoctor(1) in roff, made from the CLI's own --help texts so that it never drifts from them.

/** Escapes text for roff: backslashes, and lines that would start with a control character. */
function roff(text) {
  return text
    .replace(/\\/g, '\\e')
    .split('\n')
    .map((line) => (/^[.']/.test(line) ? `\\&${line}` : line))
    .join('\n');
}

function block(help) {
  return ['.nf', roff(help.trimEnd()), '.fi'].join('\n');
}

export function manPage({ version, main, commands }) {
  const date = new Date().toISOString().slice(0, 10);
  return [
    `.TH NICDOCTOR 1 "${date}" "nicdoctor ${version}" "User Commands"`,
    '.SH NAME',
    'nicdoctor \\- find why a 10/40/100GbE server does not reach line rate',
    '.SH SYNOPSIS',
    '.B nicdoctor',
    '.I command',
    '[\\fIoptions\\fR]',
    '.SH DESCRIPTION',
    "nicdoctor reads the host's NICs, PCIe links, queues, interrupts, CPU and kernel settings, runs its checks and rules, and prints a report; it changes nothing unless \\fBfix \\-\\-apply\\fR is asked for.",
    block(main),
    '.SH COMMANDS',
    ...commands.flatMap(({ name, help }) => [`.SS ${name}`, block(help)]),
    '.SH EXIT STATUS',
    '0: no finding at or above \\fB\\-\\-fail\\-on\\fR (or the policy passes); 1: findings (or the policy fails); 2: bad usage or input; 3: could not run; 130: interrupted.',
    '.SH FILES',
    '.TP',
    '.I /usr/share/nicdoctor/policies/',
    'pre-deployment policies for \\fB\\-\\-policy\\fR (also built in: \\fB\\-\\-policy 25g\\fR).',
    '.TP',
    '.I /etc/default/nicdoctor',
    'extra arguments of nicdoctor\\-scan.service.',
    '.SH SEE ALSO',
    '.BR ethtool (8),',
    '.BR iperf3 (1),',
    '.BR lspci (8)',
    '',
  ].join('\n');
}
