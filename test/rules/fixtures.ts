import type { Finding, Scalar } from '../../src/report/schema.js';
import { IF, typedFinding, type FindingData, type SymptomId } from './helpers.js';

/** Findings with the data their checks really report, typed and validated by the checks' own schemas. */
const f = <S extends SymptomId>(symptom: S, data: FindingData<S>, subject = IF) => typedFinding(symptom, subject, data);
const host = <S extends SymptomId>(symptom: S, data: FindingData<S>) => typedFinding(symptom, 'host', data);

export const pcieBelow = f('pcie-link/pcie-bandwidth-below-port', {
  address: '0000:41:00.0',
  currentGts: 5,
  currentWidth: 1,
  maxGts: 5,
  maxWidth: 8,
  currentLink: 'Gen2 x1',
  usableGbps: 3.56,
  ceilingGbps: 3.56,
  portGbps: 10,
  ceilingLink: 'Gen2 x1',
  limitedAt: 'card',
  limitingAddress: '0000:41:00.0',
  minimumLink: 'Gen2 x4 or Gen3 x2',
});
export const pcieDowngraded = f('pcie-link/pcie-link-downgraded', {
  address: '0000:41:00.0',
  currentGts: 8,
  currentWidth: 4,
  maxGts: 8,
  maxWidth: 8,
  currentLink: 'Gen3 x4',
  maxLink: 'Gen3 x8',
  usableGbps: 28.04,
  maxUsableGbps: 56.08,
  ceilingGbps: 28.04,
  portGbps: 10,
});
export const upstream = f('pcie-link/upstream-port-limits', {
  address: '0000:41:00.0',
  currentGts: 8,
  currentWidth: 8,
  maxGts: 8,
  maxWidth: 8,
  currentLink: 'Gen3 x8',
  usableGbps: 56.08,
  ceilingGbps: 28.04,
  portGbps: 10,
  limitingAddress: '0000:00:1c.0',
  limitingLink: 'Gen3 x4',
  limitingUsableGbps: 28.04,
});
export const shared = f('pcie-link/pcie-shared-link-below-ports', {
  address: '0000:41:00.0',
  currentGts: 8,
  currentWidth: 4,
  maxGts: 8,
  maxWidth: 4,
  currentLink: 'Gen3 x4',
  usableGbps: 28.04,
  ceilingGbps: 28.04,
  portGbps: 25,
  ports: 2,
  portNames: 'enp65s0f0, enp65s0f1',
  sumGbps: 50,
  minimumLink: 'Gen3 x8',
});
export const payload = f('pcie-link/pcie-max-payload-small', {
  address: '0000:41:00.0',
  configuredBytes: 128,
  supportedBytes: 512,
  maxReadRequestBytes: 512,
});

export const singleThreaded = host('iperf3/single-threaded-version', {
  version: '3.12',
  threadedSince: '3.16',
  authenticationFixedSince: '3.19.1',
  major: 3,
  minor: 12,
  fastestMbps: 40_000,
  reportedMbps: null,
  iperf2Faster: false,
});
export const affinityThreads = host('iperf3/affinity-with-threads', {
  version: '3.17',
  threadedSince: '3.16',
  authenticationFixedSince: '3.19.1',
});

export const rxRingBelow = f('rx-rings/rx-ring-below-max', {
  rxCurrent: 512,
  rxMax: 8192,
  txCurrent: 512,
  txMax: 8192,
  speedMbps: 10000,
  fastLink: true,
  profile: 'throughput',
});
export const ringMaxSmall = f('rx-rings/ring-max-small', { rxMax: 256, smallRingMax: 1024 });
export const nicDrops = f('nic-drops/nic-drops', {
  counter: 'rx_missed_errors',
  value: 18234,
  queues: 0,
  rxPackets: null,
  negligible: false,
  remedy: 'rings',
  origin: 'ethtool.stats',
  driver: 'ixgbe',
});
/** A receive-FIFO counter that holds most of the packets that arrived (delivered + dropped). */
export const rxPathStuck = f('nic-drops/rx-path-stuck', {
  counter: 'rx_fifo_errors',
  value: 9980,
  queues: 0,
  rxPackets: 10_593,
  negligible: false,
  remedy: 'rings',
  origin: 'proc.net.dev',
  driver: null,
});
export const physicalErrors = f('nic-drops/physical-errors', {
  counter: 'rx_crc_errors',
  value: 77,
  queues: 0,
  rxPackets: null,
  negligible: false,
  remedy: 'physical',
  origin: 'ethtool.stats',
  driver: 'ixgbe',
});
export const queueImbalance = f('nic-drops/rx-queue-imbalance', {
  queue: 3,
  packets: 910_000,
  totalPackets: 1_000_000,
  share: 0.91,
  sharePercent: 91,
  activeQueues: 2,
  queues: 8,
  maxOverMedian: 1.8,
  p90OverP10: 10.1,
  cvPercent: 116,
  dominant: true,
  allOnOne: false,
});

export const perPacket = f('coalescing/interrupt-per-packet', {
  rxUsecs: 0,
  rxFrames: 1,
  driver: 'ixgbe',
  profile: 'throughput',
  paravirtual: false,
  setRxUsecs: 1,
});
export const adaptiveOn = f('coalescing/adaptive-coalescing-on', {
  adaptiveRx: 'on',
  adaptiveTx: 'on',
  driver: 'ixgbe',
  rxUsecs: 50,
  dynamicItr: false,
  rxUsecsHigh: null,
  profile: 'measurement',
});

export const offloadOff = (profile: 'throughput' | 'measurement' | 'latency' = 'throughput') =>
  f('offloads/offload-off', { features: 'tso,gso', count: 2, profile, onPurpose: false });
export const offloadFixed = f('offloads/offload-fixed-off', { features: 'tso', count: 1 });
export const pauseOff = f('flow-control/pause-off', {
  rx: 'off',
  tx: 'off',
  refused: false,
  driver: 'ice',
  speedMbps: 25000,
  offByDefault: true,
  curedByPoster: false,
});

export const belowCapability = f('link-speed/below-capability', {
  negotiatedMbps: 1000,
  bestMbps: 10000,
  bestMode: '10000baseT/Full',
  partnerShown: true,
  partnerBestMode: '1000baseT/Full',
  partnerBestMbps: 1000,
  commonBestMode: '1000baseT/Full',
  commonBestMbps: 1000,
  driver: 'ixgbe',
  driverVersion: null,
  firmwareVersion: null,
  driverInfo: true,
});
export const flapping = f('link-speed/carrier-flapping', { carrierChanges: 40, flaps: 20, threshold: 10 });

export const irqsOffNode = f('irq-affinity/irqs-off-node', {
  queues: 8,
  irqs: '40,41',
  localCpus: '0-7',
  numaNode: 0,
  offNode: 8,
  entirelyRemote: 8,
  remoteCpus: '8-15',
});
export const irqsOneCpu = f('irq-affinity/irqs-on-one-cpu', { queues: 8, irqs: '40,41', localCpus: '0-7', numaNode: 0, cpu: 0 });
export const concentration = f('irq-affinity/interrupt-concentration', {
  queues: 8,
  irqs: '40,41',
  localCpus: '0-7',
  numaNode: 0,
  cpu: 3,
  total: 1000,
  topCount: 950,
  share: 0.95,
  sharePercent: 95,
});
export const irqbalanceOverrides = f('irq-affinity/irqbalance-overrides-pinning', {
  queues: 8,
  irqs: '40,41',
  localCpus: '0-7',
  numaNode: 0,
  pid: 812,
  unbannedIrqs: '40',
  configPath: '/etc/default/irqbalance',
});

export const numaMemoryless = f('numa-locality/nic-node-memoryless', { node: 1, nodes: 2, localCpus: '8-15', memoryNode: 0, distance: 21 });
export const numaUnknown = f('numa-locality/numa-node-unknown', { nodes: 2 });
export const numaNode = f('numa-locality/nic-numa-node', { node: 0, nodes: 2, localCpus: '0-7', memoryNode: 0, distance: 10 });

export const allToOne = f('rss-indirection/all-to-one-queue', { queue: 0, entries: 128, rings: 8, complete: true, linkMbps: 10000 });
export const singleQueue = f('rss-queues/single-queue-fast-port', {
  current: 1,
  max: 16,
  suggested: 8,
  localCpus: 8,
  localCpuMask: 'ff',
  linkGbps: 10,
  targetCombined: 8,
  targetRx: null,
  targetTx: null,
});
export const queuesBelowMax = f('rss-queues/queues-below-max', {
  channel: 'combined',
  current: 2,
  max: 16,
  localCpus: 8,
  suggested: 8,
  cpuSource: 'nic-local',
  driver: 'ixgbe',
  driverRssCap: 16,
  targetCombined: 8,
  targetRx: null,
  targetTx: null,
});

export const governor = host('cpu-frequency/governor-not-performance', {
  wanted: 'performance',
  notWanted: 16,
  cpus: 16,
  governorCounts: 'powersave=16',
  driver: 'intel_pstate',
});
export const freqBelowMax = host('cpu-frequency/frequency-below-max', {
  medianMHz: 1200,
  maxMHz: 3500,
  percent: 34,
  wanted: 'performance',
});
export const freqCapped = host('cpu-frequency/max-frequency-capped', { capped: 16, scalingMaxMHz: 2000, maxMHz: 3500, maxKHz: 3500000 });
export const smt = host('cpu-frequency/smt-active', { threads: 16, cores: 8, firstThreads: '0-7', smtControl: 'on' });

export const backlogDrops = host('softnet/backlog-drops', {
  totalDropped: 5123,
  dropRate: 0.0001,
  cpuCount: 1,
  cpus: '3',
  cpuIds: 'cpu',
  backlog: 1000,
  suggestedBacklog: 2000,
});
export const budgetExhausted = host('softnet/budget-exhausted', {
  totalSqueeze: 900,
  cpuCount: 2,
  worstCpu: 3,
  cpuIds: 'cpu',
  worstRatio: 0.01,
  perHour: null,
  budget: 300,
  budgetUsecs: 2000,
  suggestedBudget: 600,
  suggestedBudgetUsecs: 4000,
});

export const tcpRmem = host('socket-buffers/tcp-rmem-below-tier', {
  key: 'net.ipv4.tcp_rmem',
  observed: 6291456,
  expected: 33554432,
  min: 4096,
  default: 131072,
  tier: 'below 40G',
  fastestInterface: IF,
  fastestMbps: 10_000,
  rttMs: 10,
  dropIn: '/etc/sysctl.d/90-nicdoctor.conf',
});
export const rmemMax = host('socket-buffers/rmem-max-below-tier', {
  key: 'net.core.rmem_max',
  observed: 212992,
  expected: 67108864,
  tier: 'below 40G',
  fastestInterface: IF,
  fastestMbps: 10_000,
  rttMs: 10,
  dropIn: '/etc/sysctl.d/90-nicdoctor.conf',
});
export const windowScalingOff = host('socket-buffers/window-scaling-off', {
  observed: 0,
  expected: 1,
  rttMs: 10,
  dropIn: '/etc/sysctl.d/90-nicdoctor.conf',
});
export const qdiscNotFq = host('socket-buffers/default-qdisc-not-fq', {
  observed: 'fq_codel',
  expected: 'fq',
  dropIn: '/etc/sysctl.d/90-nicdoctor.conf',
});

export const standardMtu = f('mtu/standard-mtu-fast-link', { mtu: 1500, linkGbps: 10, jumboMtu: 9000, probeSize: 8972 });
export const mtuBelowStandard = f('mtu/mtu-below-standard', { mtu: 1450, standardMtu: 1500 });
export const bondMismatch = f('mtu/bond-member-mtu-mismatch', { mtu: 1500, master: 'bond0', masterMtu: 9000 });

// The bench's findings (throughput check, host-level).
export const below = (resultGbps: number, extra: Record<string, Scalar> = {}) =>
  host('throughput/below-link-ceiling', {
    resultGbps,
    ceilingGbps: 9.41,
    percent: Math.round((resultGbps / 9.41) * 100),
    interface: IF,
    linkGbps: 10,
    mtu: 1500,
    processes: 4,
    ...extra,
  });
export const atCeiling = host('throughput/at-link-ceiling', {
  resultGbps: 9.38,
  ceilingGbps: 9.41,
  percent: 100,
  interface: IF,
  linkGbps: 10,
  mtu: 1500,
  processes: 4,
});
export const pcieBound = (resultGbps = 3.2, pcieGbps = 3.56) =>
  host('throughput/pcie-bound', { resultGbps, pcieGbps, percent: Math.round((resultGbps / pcieGbps) * 100) });
export const singleCore = host('throughput/single-core-bound', {
  cpuPercent: 99.5,
  limitPercent: 100,
  cpuBound: true,
  remoteCpuPercent: null,
  efficiencyPercent: 57,
  scaledProcesses: 4,
  singleGbps: 4.1,
  bestGbps: 9.3,
  bestProcesses: 4,
  ratio: 2.27,
});
export const retransmits = host('throughput/retransmits', { retransmits: 48211, durationSeconds: 10, perGb: 4120, ratePercent: 0.61 });
export const retransmitsReordered = host('throughput/retransmits-reordered', {
  retransmits: 5661,
  durationSeconds: 10,
  ratePercent: 0.4,
  recoveries: 223,
  undone: 187,
  undonePercent: 84,
});
export const unstable = host('throughput/unstable', { cvPercent: 31.2, lossPercent: 0.01 });
export const unstableLossy = host('throughput/unstable', { cvPercent: 21.2, lossPercent: 0.12 });
export const stalled = host('throughput/stalled', {
  stalledIntervals: 3,
  intervals: 10,
  bestGbps: 9.9,
  bestMbps: 9900,
  neverStarted: false,
});
/** A jumbo-MTU run that sent its first windows and then nothing (a real perfSONAR ticket's numbers). */
export const stalledFromStart = host('throughput/stalled', {
  stalledIntervals: 8,
  intervals: 9,
  bestGbps: 0,
  bestMbps: 0.716,
  neverStarted: true,
});
export const collapse = host('throughput/collapse-after-first-interval', { firstGbps: 9.1, restGbps: 0.4 });
export const versionSkew = host('throughput/version-skew', { client: '3.16', server: '3.9' });
export const serverBusy = host('throughput/server-busy', { count: 2 });
export const bidir = host('throughput/bidir-asymmetry', { forwardGbps: 9.3, reverseGbps: 4.2, asymmetryPercent: 55 });

export type { Finding };

export { nic as nicFor } from './helpers.js';

// Traffic control on the interface (qdisc check).
export const egressShaped = (rateGbps = 2) =>
  f('qdisc/egress-shaped', {
    kind: 'tbf',
    handle: '8016:',
    type: 'qdisc',
    rateMbps: rateGbps * 1000,
    rateGbps,
    linkMbps: 10_000,
    linkGbps: 10,
    percent: rateGbps * 10,
    perFlow: false,
  });
export const qdiscDrops = f('qdisc/qdisc-drops', { kind: 'tbf', handle: '8016:', dropped: 2966, overlimits: 3045, sentPackets: 34 });

export const udpBufferErrors = host('protocol-counters/udp-buffer-errors', {
  direction: 'Rcv',
  errors: 52_311,
  datagrams: 9_800_000,
  ratio: 0.0053,
});
export const tcpRetransmits = host('protocol-counters/tcp-retransmits', { retrans: 2_400_000, sent: 120_000_000, ratio: 0.02 });
export const socketBacklog = host('protocol-counters/socket-backlog-drops', {
  backlogDrops: 1200,
  pruned: 14,
  pruneCalled: 30,
  ofoPruned: 0,
  perHour: 1210,
});
export const listenDrops = host('protocol-counters/listen-drops', { listenDrops: 7, overflows: 7, perHour: null });
export const aspm = f('pcie-link/aspm-enabled', { address: '0000:03:00.0', aspm: 'L1' });
export const exceedsLinkSpeed = host('throughput/exceeds-link-speed', {
  resultGbps: 21.4,
  ceilingGbps: 9.41,
  percent: 227,
  interface: 'enp65s0f0',
  linkGbps: 10,
  mtu: 1500,
  processes: 8,
});

/** A driver's "limited by" PCIe line: 63 Gb/s (≈ 56 of traffic) on an x8 link, judged against the port. */
export const kernelPcieLimited = (carriesPort: 'no' | 'shared' | 'yes' | 'unknown' = 'no', portGbps: number | null = 100) =>
  f('kernel-pcie/pcie-bandwidth-limited', {
    requiredGbps: carriesPort === 'shared' ? 80 : null,
    driver: 'mlx5_core',
    address: '0000:41:00.0',
    interfaceName: IF,
    availableGbps: 63.008,
    ceilingGbps: 56.08,
    portGbps,
    portFromInterface: portGbps !== null,
    link: null,
    limitedByLink: '8 GT/s x8',
    limitedByAddress: '0000:40:00.0',
    capableGbps: 252.048,
    capableLink: '16 GT/s x16',
    limitingAddress: '0000:40:00.0',
    carriesPort,
  });

export const overlayTooBig = f(
  'mtu/overlay-mtu-exceeds-underlay',
  { mtu: 1500, tunnel: 'vxlan', overheadBytes: 50, underlayMtu: 1500, underlay: 'eth0', fittingMtu: 1450 },
  'vxlan100',
);
export const mtuProbingOff = host('socket-buffers/mtu-probing-off-with-jumbo', {
  observed: 0,
  expected: 1,
  interfaces: IF,
  mtu: 9000,
  dropIn: '/etc/sysctl.d/90-nicdoctor.conf',
});

// Optics (ethtool -m): the values of the real captures in fixtures/real/ethtool-module.
const moduleIdentity = { identifier: 'SFP', vendor: 'Transition', partNumber: 'TN-SFP-10G-LR' };
export const rxNoLight = f('optical-module/module-out-of-range', {
  quantity: 'rxPower',
  side: 'low',
  level: 'alarm',
  channel: null,
  value: 0.0001,
  threshold: 0.049,
  unit: 'mW',
  ...moduleIdentity,
});
export const moduleHot = f('optical-module/module-out-of-range', {
  quantity: 'temperature',
  side: 'high',
  level: 'warning',
  channel: null,
  value: 88,
  threshold: 85,
  unit: 'degrees C',
  identifier: 'SFP',
  vendor: 'BOYANG',
  partNumber: 'SFP-10G-SR',
});
export const moduleSlower = f('optical-module/module-slower-than-port', {
  moduleMbps: 1000,
  portMaxMbps: 10_000,
  negotiatedMbps: 1000,
  nominalMbps: 1300,
  transceiverType: 'Ethernet: BASE-BX10',
  identifier: 'SFP',
  vendor: 'FS',
  partNumber: 'SFP-GE-BX',
});

// The rest of the stack: the FB production host's 36278 listen overflows, and drops either side of the limits.
export const listenOverflows = host('protocol-counters/listen-drops', { listenDrops: 36278, overflows: 36278, perHour: null });
export const memoryPressure = host('protocol-counters/memory-pressure', {
  memoryPressures: 3,
  abortOnMemory: 0,
  pfmemallocDrops: 17,
  perHour: null,
});
export const socketMemoryPressure = host('socket-memory/socket-memory-pressure', {
  protocol: 'TCP',
  pages: 260_000,
  pressurePages: 253_153,
  highPages: 379_728,
  level: 'pressure',
});
export const conntrackFull = host('conntrack-table/conntrack-near-full', { count: 65_536, max: 65_536, percent: 100 });
/** The clusters of a FreeBSD 4 web server at kern.ipc.nmbclusters; the denials of a FreeBSD 6 one with its pool at 1 %. */
const noDenials = { mbufsDenied: 0, clustersDenied: 0, mbufClustersDenied: 0, jumboDenied: 0, delayed: 0 };
export const mbufPoolFull = host('mbufs/mbuf-pool-exhausted', {
  ...noDenials,
  mbufsDenied: 106_522,
  delayed: 1545,
  clustersInUse: 6656,
  clustersMax: 6656,
  percent: 100,
});
export const mbufsDenied = host('mbufs/mbuf-requests-denied', {
  ...noDenials,
  mbufsDenied: 16_064_849,
  clustersDenied: 9_164_254,
  mbufClustersDenied: 9_384_500,
  clustersInUse: 662,
  clustersMax: 65_536,
  percent: 1,
});
export const checksumErrors = host('protocol-counters/checksum-errors', {
  protocol: 'Tcp',
  errors: 39,
  received: 2_041_813_239,
  perHour: null,
});
export const zeroWindow = host('protocol-counters/zero-window-drops', { zeroWindowDrops: 9000, receiveQueueDrops: 2000, perHour: null });
export const sysctlDiffers = host('sysctl-drift/sysctl-differs', {
  key: 'net.core.default_qdisc',
  onDisk: 'fq_codel',
  running: 'pfifo_fast',
  file: '/usr/lib/sysctl.d/50-default.conf',
});
