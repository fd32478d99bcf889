/** The scripted host of the fix state tests: ethtool and /proc/sys of one interface, eth0. */
import type { FixIO } from '../../src/fix/apply.js';
import { checkOperation, isApplicable } from '../../src/fix/operations.js';
import { HostIOError, type ExecResult } from '../../src/hostio/types.js';

/** A host with one veth-like interface: features, channels, and /proc/sys with a read-only key. */
export class FakeHost implements FixIO {
  features: Record<string, boolean> = { 'tcp-segmentation-offload': false, 'generic-segmentation-offload': false };
  channels = { rx: 1, tx: 1 };
  sysctl: Record<string, string> = { 'net.ipv4.tcp_rmem': '4096\t8192\t16384', 'net.core.rmem_max': '212992' };
  readOnly = new Set(['net.core.rmem_max']);
  ran: string[][] = [];

  async exec(argv: string[]): Promise<ExecResult> {
    this.ran.push(argv);
    const ok = (stdout = ''): ExecResult => ({ argv, exitCode: 0, stdout, stderr: '', durationMs: 1 });
    const [tool, flag, iface, ...rest] = argv;
    if (tool === 'ethtool' && iface !== 'eth0') return { argv, exitCode: 1, stdout: '', stderr: 'no such device', durationMs: 1 };
    if (tool === 'ethtool' && flag === '-k') {
      return ok(
        `Features for eth0:\ntcp-segmentation-offload: ${this.features['tcp-segmentation-offload'] ? 'on' : 'off'}\n\ttx-tcp-segmentation: off\ngeneric-segmentation-offload: ${this.features['generic-segmentation-offload'] ? 'on' : 'off'}\n`,
      );
    }
    if (tool === 'ethtool' && flag === '-K') {
      const long: Record<string, string> = { tso: 'tcp-segmentation-offload', gso: 'generic-segmentation-offload' };
      for (let i = 0; i < rest.length; i += 2) this.features[long[rest[i]!]!] = rest[i + 1] === 'on';
      return ok();
    }
    if (tool === 'ethtool' && flag === '-l') {
      return ok(
        `Channel parameters for eth0:\nPre-set maximums:\nRX:\t\t2\nTX:\t\t2\nOther:\t\tn/a\nCombined:\tn/a\nCurrent hardware settings:\nRX:\t\t${this.channels.rx}\nTX:\t\t${this.channels.tx}\nOther:\t\tn/a\nCombined:\tn/a\n`,
      );
    }
    if (tool === 'ethtool' && flag === '-L') {
      for (let i = 0; i < rest.length; i += 2) this.channels[rest[i] as 'rx' | 'tx'] = Number(rest[i + 1]);
      return ok();
    }
    if (tool === 'sysctl' && flag === '-w') {
      const [key, value] = [iface!.slice(0, iface!.indexOf('=')), iface!.slice(iface!.indexOf('=') + 1)];
      // procps sysctl prints an error and still exits 0 on a read-only key.
      if (!this.readOnly.has(key)) this.sysctl[key] = value;
      return ok();
    }
    return { argv, exitCode: 127, stdout: '', stderr: 'unexpected', durationMs: 1 };
  }

  async readFile(file: string): Promise<string> {
    const key = file.replace('/proc/sys/', '').split('/').join('.');
    const value = this.sysctl[key];
    if (value === undefined) throw new HostIOError('not-found', `${file}: no such file or directory`);
    return `${value}\n`;
  }
}

/** Operations as a rule's fix carries them, checked by their schemas. */
export function changes(...candidates: Record<string, unknown>[]) {
  return candidates.map((candidate) => {
    const checked = checkOperation(candidate);
    if (!checked.ok) throw new Error(checked.reason);
    if (!isApplicable(checked.op)) throw new Error(`${checked.op.kind} is not applicable`);
    return { change: checked.op, ruleId: 'test' };
  });
}
