import { describe, expect, it } from 'vitest';
import { interfacesNamedInProse } from '../../src/parsers/prose-interfaces.js';

describe('interfacesNamedInProse', () => {
  it('reads interface names of the usual schemes, in backticks or bare, once each', () => {
    expect(
      interfacesNamedInProse(
        'TSO on `thunderbolt0` mishandles forwarded frames; eth2 and enp65s0f1np1 are fine, bond0 too, and thunderbolt0 again.',
      ),
    ).toEqual(['thunderbolt0', 'eth2', 'enp65s0f1np1', 'bond0']);
  });

  it('leaves out models, versions, paths and addresses that look like names', () => {
    expect(interfacesNamedInProse('An X710 and a macOS client on en0, kernel 6.1.0-eth1x, /sys/class/net/eth3/mtu, v1.2.3')).toEqual([]);
  });
});
