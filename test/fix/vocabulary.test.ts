import { describe, expect, it } from 'vitest';
import { changeArgv, changeText, parseCommand } from '../../src/fix/vocabulary.js';
import { shellQuote, splitSimpleCommand } from '../../src/fix/shell.js';

describe('the vocabulary --apply may run', () => {
  it.each([
    ['ethtool -K eth0 tso on gso on', { tool: 'ethtool', op: 'features', iface: 'eth0', settings: [['tso', 'on'], ['gso', 'on']] }],
    ['ethtool --features enp65s0f0 generic-receive-offload off', { tool: 'ethtool', op: 'features', iface: 'enp65s0f0', settings: [['generic-receive-offload', 'off']] }],
    ['ethtool -L eth0 rx 2 tx 2', { tool: 'ethtool', op: 'channels', iface: 'eth0', settings: [['rx', '2'], ['tx', '2']] }],
    ['ethtool -G eth0.100 rx 4096 tx 4096', { tool: 'ethtool', op: 'rings', iface: 'eth0.100', settings: [['rx', '4096'], ['tx', '4096']] }],
    ['ethtool -C eth0 adaptive-rx on rx-usecs 50', { tool: 'ethtool', op: 'coalesce', iface: 'eth0', settings: [['adaptive-rx', 'on'], ['rx-usecs', '50']] }],
    ['ethtool -A eth0 rx on tx on', { tool: 'ethtool', op: 'pause', iface: 'eth0', settings: [['rx', 'on'], ['tx', 'on']] }],
    ['sysctl -w net.core.netdev_max_backlog=250000', { tool: 'sysctl', key: 'net.core.netdev_max_backlog', value: '250000' }],
    ["sysctl -w 'net.ipv4.tcp_rmem=4096 87380 33554432'", { tool: 'sysctl', key: 'net.ipv4.tcp_rmem', value: '4096 87380 33554432' }],
    ['sysctl -w net.ipv4.tcp_rmem="4096  87380 33554432"', { tool: 'sysctl', key: 'net.ipv4.tcp_rmem', value: '4096 87380 33554432' }],
  ])('accepts %s', (command, change) => {
    const parsed = parseCommand(command);
    expect(parsed).toEqual({ ok: true, changes: [change] });
  });

  it.each([
    ['ethtool -K eth0; rm -rf /', 'not a simple command'],
    ['ethtool -K eth0 tso on; rm -rf /', 'not a simple command'],
    ['ethtool -K eth0 tso on && reboot', 'not a simple command'],
    ['ethtool -K eth0 tso $(reboot)', 'not a simple command'],
    ['ethtool -K eth0 tso "$(reboot)"', 'not a simple command'],
    ['ethtool -K eth0 tso `reboot`', 'not a simple command'],
    ['ethtool -K eth0 tso on > /etc/passwd', 'not a simple command'],
    ['ethtool -K eth0 tso on\nreboot', 'not a simple command'],
    ['ethtool -K ../../x tso on', 'not a valid interface name'],
    ['ethtool -K eth0/../x tso on', 'not a valid interface name'],
    ['ethtool -K averyveryverylongname0 tso on', 'not a valid interface name'],
    ['ethtool -K -eth0 tso on', 'not a valid interface name'],
    ['ethtool -K eth0 tso maybe', 'must be on or off'],
    ['ethtool -K eth0 tso', 'name/value pairs'],
    ['ethtool -K eth0', 'name/value pairs'],
    ['ethtool -L eth0 rx -1', 'must be a count'],
    ['ethtool -L eth0 queues 4', 'not a channel type'],
    ['ethtool -G eth0 rx 0', 'positive size'],
    ['ethtool -C eth0 rx-usecs 5 rx-usecs 6', 'given twice'],
    ['ethtool -C eth0 magic 5', 'not a coalescing parameter'],
    ['ethtool -s eth0 speed 1000', 'not one of the settings'],
    ['ethtool -X eth0 equal 8', 'not one of the settings'],
    ['ethtool -r eth0', 'not one of the settings'],
    ['ethtool -S eth0', 'not one of the settings'],
    ['sysctl -w kernel.panic=1', 'only net.* keys'],
    ['sysctl -w vm.swappiness=10', 'only net.* keys'],
    ['sysctl -w net/core/rmem_max=1', 'only net.* keys'],
    ['sysctl -w net..core=1', 'only net.* keys'],
    ['sysctl -w net.core.rmem_max=', 'not a plain value'],
    ['sysctl --system', 'only sysctl -w'],
    ['sysctl -p /etc/sysctl.d/x.conf', 'only sysctl -w'],
    ['ip link set dev eth0 mtu 9000', 'not in the vocabulary'],
    ['systemctl enable --now irqbalance', 'not in the vocabulary'],
    ['/usr/sbin/ethtool -K eth0 tso on', 'not in the vocabulary'],
    ['bash -c "ethtool -K eth0 tso on"', 'not in the vocabulary'],
    ['', 'not a simple command'],
  ])('refuses %j', (command, reason) => {
    const parsed = parseCommand(command);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toContain(reason);
  });

  it('checks argv (a state file) the same way as text', () => {
    expect(parseCommand(['ethtool', '-K', 'eth0', 'tso', 'on']).ok).toBe(true);
    expect(parseCommand(['ethtool', '-K', 'eth0/../x', 'tso', 'on']).ok).toBe(false);
    // The kernel allows ";" in a name; as argv it is one word, and printed it is quoted.
    const hostile = parseCommand(['ethtool', '-K', 'eth0;reboot', 'tso', 'on']);
    expect(hostile.ok && changeText(hostile.changes[0]!)).toBe("ethtool -K 'eth0;reboot' tso on");
    expect(parseCommand(['sh', '-c', 'reboot']).ok).toBe(false);
  });

  it('turns a change back into the argv it came from', () => {
    const parsed = parseCommand("sysctl -w 'net.ipv4.tcp_rmem=4096 87380 33554432'");
    expect(parsed.ok && changeArgv(parsed.changes[0]!)).toEqual(['sysctl', '-w', 'net.ipv4.tcp_rmem=4096 87380 33554432']);
  });
});

describe('shell words', () => {
  it('quotes only what needs quoting, and round-trips through the splitter', () => {
    expect(shellQuote('eth0')).toBe('eth0');
    expect(shellQuote('a b')).toBe("'a b'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(shellQuote('')).toBe("''");
    expect(splitSimpleCommand(`x ${shellQuote('4096 87380 1')} y`)).toEqual(['x', '4096 87380 1', 'y']);
    expect(splitSimpleCommand("echo 'unterminated")).toBeNull();
  });
});
