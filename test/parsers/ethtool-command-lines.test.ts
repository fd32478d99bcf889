import { describe, expect, it } from 'vitest';
import { interfacesOfEthtoolCommands } from '../../src/parsers/ethtool-command-lines.js';

describe('interfacesOfEthtoolCommands', () => {
  it('names the interface of each ethtool command line, after prompts, sudo, quoting and before a pipe', () => {
    const text = [
      'ethtool -G 4096 ens16f0',
      '# ethtool -G ens16f1 rx 4096 tx 4096',
      '> $ sudo ethtool -S eth2 | grep -i drop',
      'root@host:~# not an ethtool line eth9',
      'ethtool --set-ring enp65s0f1 rx 8192',
    ].join('\n');
    expect(interfacesOfEthtoolCommands(text)).toEqual(['ens16f0', 'ens16f1', 'eth2', 'enp65s0f1']);
    expect(interfacesOfEthtoolCommands(text, ['-G', '--set-ring'])).toEqual(['ens16f0', 'ens16f1', 'enp65s0f1']);
  });

  it('takes no keyword, number or usage placeholder for an interface', () => {
    expect(interfacesOfEthtoolCommands('ethtool -G devname rx N\nethtool -s dev1x speed 1000\nethtool -G and it works')).toEqual(['dev1x']);
    expect(interfacesOfEthtoolCommands('ethtool -K tx off rx off')).toEqual([]);
  });
});
