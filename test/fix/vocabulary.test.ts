import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  APPLICABLE_KINDS,
  checkOperation,
  isApplicable,
  operationArgv,
  operationSchema,
  operationTemplateSchema,
  operationText,
  OPERATION_SCHEMAS,
  type Operation,
} from '../../src/fix/operations.js';
import { shellQuote } from '../../src/fix/shell.js';
import { isValidInterfaceName } from '../../src/util/validate.js';

function checked(candidate: Record<string, unknown>): Operation {
  const result = checkOperation(candidate);
  if (!result.ok) throw new Error(result.reason);
  return result.op;
}

/** How bash splits a line into words (no command runs: the words are printed). */
function bashWords(line: string): string[] {
  const out = execFileSync('bash', ['-c', `args=( ${line} ); printf '%s\\0' "\${args[@]}"`], {
    env: { PATH: '/usr/bin:/bin' },
    encoding: 'utf8',
  });
  return out.split('\0').slice(0, -1);
}

describe('fix operations: schemas, argv and shell text', () => {
  it.each([
    [{ kind: 'ethtool-features', iface: 'eth0', on: ['tso', 'gso'] }, ['ethtool', '-K', 'eth0', 'tso', 'on', 'gso', 'on']],
    // A finding's feature list, as ethtool -k names or labels: ethtool -K's short names.
    [
      { kind: 'ethtool-features', iface: 'eth0', on: 'TSO, GSO', off: 'generic-receive-offload' },
      ['ethtool', '-K', 'eth0', 'tso', 'on', 'gso', 'on', 'gro', 'off'],
    ],
    [{ kind: 'ethtool-channels', iface: 'eth0', rx: 2, tx: '2' }, ['ethtool', '-L', 'eth0', 'rx', '2', 'tx', '2']],
    [{ kind: 'ethtool-rings', iface: 'eth0.100', rx: '4096', tx: 4096 }, ['ethtool', '-G', 'eth0.100', 'rx', '4096', 'tx', '4096']],
    [
      { kind: 'ethtool-coalesce', iface: 'eth0', 'rx-usecs': 50, 'adaptive-rx': 'on' },
      ['ethtool', '-C', 'eth0', 'adaptive-rx', 'on', 'rx-usecs', '50'],
    ],
    [{ kind: 'ethtool-pause', iface: 'eth0', rx: 'on', tx: 'on' }, ['ethtool', '-A', 'eth0', 'rx', 'on', 'tx', 'on']],
    [{ kind: 'sysctl', key: 'net.core.netdev_max_backlog', value: 250000 }, ['sysctl', '-w', 'net.core.netdev_max_backlog=250000']],
    [
      { kind: 'sysctl', key: 'net.ipv4.tcp_rmem', value: '4096\t87380  33554432' },
      ['sysctl', '-w', 'net.ipv4.tcp_rmem=4096 87380 33554432'],
    ],
  ])('%j runs as %j', (candidate, argv) => {
    const op = checked(candidate);
    expect(isApplicable(op)).toBe(true);
    if (!isApplicable(op)) return;
    expect(operationArgv(op)).toEqual(argv);
    // The printed text is the same argv once a shell splits it.
    expect(bashWords(operationText(op))).toEqual(argv);
  });

  it.each([
    [{ kind: 'ethtool-rings', iface: 'eth0', rx: 'lots' }, 'rx: rx ring size must be a number, not "lots"'],
    [{ kind: 'ethtool-rings', iface: 'eth0', rx: 0 }, 'rx: rx ring size must be at least 1'],
    [{ kind: 'ethtool-rings', iface: 'eth0', rx: 4096.5 }, 'rx: rx ring size must be a whole number'],
    [{ kind: 'ethtool-rings', iface: 'eth0' }, 'no setting to change'],
    [{ kind: 'ethtool-channels', iface: 'eth0', rx: -1 }, 'rx: rx channels must be at least 0'],
    [{ kind: 'ethtool-channels', iface: 'eth0', queues: 4 }, 'queues'],
    [{ kind: 'ethtool-features', iface: '../../x', on: ['tso'] }, 'iface: "../../x" is not a valid interface name'],
    [{ kind: 'ethtool-features', iface: '-eth0', on: ['tso'] }, 'not a valid interface name'],
    [{ kind: 'ethtool-features', iface: 'averyveryverylongname0', on: ['tso'] }, 'not a valid interface name'],
    [{ kind: 'ethtool-features', iface: 'eth0', on: ['tso;reboot'] }, 'not an offload feature name'],
    [{ kind: 'ethtool-features', iface: 'eth0', on: ['tso'], off: ['tso'] }, 'tso is given twice'],
    [{ kind: 'ethtool-coalesce', iface: 'eth0', 'adaptive-rx': 'maybe' }, 'adaptive-rx must be on or off, not "maybe"'],
    [{ kind: 'ethtool-coalesce', iface: 'eth0', magic: 5 }, 'magic'],
    [{ kind: 'sysctl', key: 'kernel.panic', value: 1 }, 'only net.* keys'],
    [{ kind: 'sysctl', key: 'net/core/rmem_max', value: 1 }, 'only net.* keys'],
    [{ kind: 'sysctl', key: 'net..core', value: 1 }, 'only net.* keys'],
    [{ kind: 'sysctl', key: 'net.core.rmem_max', value: '' }, 'an empty value'],
    [{ kind: 'sysctl', key: 'net.core.rmem_max', value: '$(reboot)' }, 'not a plain value'],
    [{ kind: 'rps-cpus', iface: 'eth0', queue: 0, mask: '<hex mask of the CPUs to use>' }, 'mask: not a hex CPU mask'],
    [{ kind: 'irq-affinity', irqs: '40,x', cpus: '0-7' }, 'irq must be a number, not "x"'],
    [{ kind: 'irq-affinity', irqs: '40', cpus: 'all' }, '"all" is not a CPU list'],
    [{ kind: 'reboot' }, 'kind'],
  ])('refuses %j', (candidate, reason) => {
    const result = checkOperation(candidate);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain(reason);
  });

  it('--apply may run exactly the ethtool set operations and sysctl -w', () => {
    expect([...APPLICABLE_KINDS].sort()).toEqual([
      'ethtool-channels',
      'ethtool-coalesce',
      'ethtool-features',
      'ethtool-pause',
      'ethtool-rings',
      'sysctl',
    ]);
    for (const op of [
      checked({ kind: 'manual', text: 'systemctl enable --now irqbalance' }),
      checked({ kind: 'inspect', argv: ['ethtool', '-S', 'eth0'] }),
      checked({ kind: 'rps-cpus', iface: 'eth0', queue: 0, mask: 'ff' }),
      checked({ kind: 'irq-affinity', irqs: '40,41', cpus: '0-1' }),
    ])
      expect(isApplicable(op)).toBe(false);
    expect(Object.keys(OPERATION_SCHEMAS).sort()).toEqual([...APPLICABLE_KINDS, 'inspect', 'irq-affinity', 'manual', 'rps-cpus'].sort());
  });

  it('renders the kinds a human runs as the shell text reports have always printed', () => {
    expect(
      operationText(checked({ kind: 'inspect', argv: ['ethtool', '-S', 'eth0'], grep: { pattern: 'drop|miss|no_buf', ignoreCase: true } })),
    ).toBe('ethtool -S eth0 | grep -iE "drop|miss|no_buf"');
    expect(operationText(checked({ kind: 'inspect', argv: ['lspci', '-vv', '-s', '0000:41:00.0'], grep: { pattern: 'LnkCtl' } }))).toBe(
      'lspci -vv -s 0000:41:00.0 | grep -E LnkCtl',
    );
    expect(operationText(checked({ kind: 'rps-cpus', iface: 'eth0', queue: 0, mask: 'ff' }))).toBe(
      'echo ff > /sys/class/net/eth0/queues/rx-0/rps_cpus',
    );
    expect(operationText(checked({ kind: 'irq-affinity', irqs: '40,41,42', cpus: '0-1' }))).toBe(
      'cpus=(0 1); i=0; for irq in 40 41 42; do echo ${cpus[i++ % 2]} > /proc/irq/$irq/smp_affinity_list; done',
    );
    expect(operationText(checked({ kind: 'manual', text: 'systemctl enable --now irqbalance' }))).toBe('systemctl enable --now irqbalance');
  });

  it('quotes an interface name the kernel allows but a shell would expand: one argv word, one shell word', () => {
    const name = '$(touch${IFS}P)';
    expect(isValidInterfaceName(name)).toBe(true);
    const op = checked({ kind: 'ethtool-features', iface: name, on: ['tso'] });
    if (!isApplicable(op)) throw new Error('not applicable');
    expect(operationArgv(op)).toEqual(['ethtool', '-K', name, 'tso', 'on']);
    expect(operationText(op)).toBe(`ethtool -K '${name}' tso on`);
    expect(bashWords(operationText(op))).toEqual(operationArgv(op));
    const rps = operationText(checked({ kind: 'rps-cpus', iface: name, queue: 0, mask: 'f' }));
    expect(bashWords(rps.replace(/^echo f > /, ''))).toEqual([`/sys/class/net/${name}/queues/rx-0/rps_cpus`]);
  });

  it('a template names only the parameters of its kind (a misspelt one is a load error)', () => {
    expect(operationTemplateSchema.safeParse({ kind: 'ethtool-rings', iface: '{subject}', rx: '{rxMax}' }).success).toBe(true);
    expect(operationTemplateSchema.safeParse({ kind: 'ethtool-rings', iface: '{subject}', rxx: '{rxMax}' }).success).toBe(false);
    expect(operationTemplateSchema.safeParse({ kind: 'shell', text: 'reboot' }).success).toBe(false);
  });

  it('a report carries operations that validate again when read back (nicdoctor fix on a saved report)', () => {
    const op = checked({ kind: 'ethtool-rings', iface: 'eth0', rx: '4096' });
    expect(operationSchema.parse(JSON.parse(JSON.stringify(op)))).toEqual({ kind: 'ethtool-rings', iface: 'eth0', rx: 4096 });
  });
});

describe('shell words', () => {
  it('quotes only what needs quoting; bash reads each quoted word back as one word', () => {
    expect(shellQuote('eth0')).toBe('eth0');
    expect(shellQuote('a b')).toBe("'a b'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(shellQuote('')).toBe("''");
    const words = ['4096 87380 1', "it's", '$(reboot)', '`id`', 'a;b', ''];
    expect(bashWords(words.map(shellQuote).join(' '))).toEqual(words);
  });
});
