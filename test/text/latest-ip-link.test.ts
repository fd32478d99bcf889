import { describe, expect, it } from 'vitest';
import { checks } from '../../checks/index.js';
import { analyzeText } from '../../src/text/analyze.js';
import { latestIpLinks } from '../../src/text/text-host.js';
import { silentLogger } from '../../src/util/log.js';

// A ticket written for this test: the port is shown up, set down on purpose, then shown again.
const BEFORE_AND_AFTER = `The LED stays on after I take the port down. Before:
$ ip link show dev eth4
5: eth4: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP mode DEFAULT group default qlen 1000
    link/ether 52:54:00:aa:bb:cc brd ff:ff:ff:ff:ff:ff
$ sudo ip link set dev eth4 down
$ ethtool eth4
Settings for eth4:
	Supported ports: [ TP ]
	Supported link modes:   1000baseT/Full
	                        2500baseT/Full
	Advertised link modes:  1000baseT/Full
	                        2500baseT/Full
	Speed: 2500Mb/s
	Duplex: Full
	Auto-negotiation: on
	Link detected: no
$ ip link show dev eth4
5: eth4: <BROADCAST,MULTICAST> mtu 1500 qdisc mq state DOWN mode DEFAULT group default qlen 1000
    link/ether 52:54:00:aa:bb:cc brd ff:ff:ff:ff:ff:ff
`;

describe('the latest ip link of an interface is its state', () => {
  it('keeps the last header per interface, with its flags', () => {
    const links = latestIpLinks([
      '3: eth1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP mode DEFAULT\n',
      '3: eth1: <BROADCAST,MULTICAST> mtu 9000 qdisc mq state DOWN mode DEFAULT\n4: eth2: <NO-CARRIER,BROADCAST,MULTICAST,UP> mtu 1500 state DOWN\n',
    ]);
    expect(links.get('eth1')).toEqual({ mtu: '9000', state: 'down', flags: ['BROADCAST', 'MULTICAST'] });
    expect(links.get('eth2')?.flags).toContain('UP');
  });

  it('does not report a port set down on purpose as a link fault', async () => {
    const [outcome] = await analyzeText(BEFORE_AND_AFTER, { checks, log: silentLogger() });
    const report = outcome!.report;
    expect(report.checks.flatMap((check) => check.findings).filter((finding) => finding.subject === 'eth4')).toEqual([]);
    expect(report.diagnoses).toEqual([]);
  });
});
