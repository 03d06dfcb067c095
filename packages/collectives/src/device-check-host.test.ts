/**
 * The host side of scripts/nccl-device-check.mjs, on CPU: the references and bandwidth arithmetic
 * with exact values, and the collective checks themselves run against the fakes (two fake GPUs),
 * where every case must pass.
 */
import { Device, Stream } from '@baracuda/driver';
import { describe, expect, it } from 'vitest';
import { runCollectiveChecks } from '../scripts/nccl-collective-checks.mjs';
import {
  allGatherHost,
  allReduceBandwidth,
  allReduceHost,
  median,
  nvlinkPerDirectionGBs,
  reduceScatterHost,
} from '../scripts/nccl-host-reference.mjs';
import { useFakes } from './fakes.test-helpers.js';
import { Communicator } from './index.js';

useFakes(2);

describe('the device check host reference', () => {
  const inputs = [
    [1, -2, 3, 4],
    [5, 6, -7, 8],
  ];
  it('reduces, scatters and gathers', () => {
    expect(allReduceHost('sum', inputs)).toEqual([6, 4, -4, 12]);
    expect(allReduceHost('avg', inputs)).toEqual([3, 2, -2, 6]);
    expect(allReduceHost('max', inputs)).toEqual([5, 6, 3, 8]);
    expect(allReduceHost('min', inputs)).toEqual([1, -2, -7, 4]);
    expect(reduceScatterHost('sum', inputs, 1, 2)).toEqual([-4, 12]);
    expect(allGatherHost(inputs)).toEqual([1, -2, 3, 4, 5, 6, -7, 8]);
  });

  it('bus bandwidth is algBw · 2(n−1)/n, as NCCL reports it', () => {
    expect(allReduceBandwidth(1e9, 0.01, 2)).toEqual({ algBw: 100, busBw: 100 });
    expect(allReduceBandwidth(1e9, 0.01, 8)).toEqual({ algBw: 100, busBw: 175 });
    expect(median([5, 1, 3])).toBe(3);
  });

  it("reads nvidia-smi's per-link NVLink speeds", () => {
    const text =
      'GPU 0: NVIDIA H200 (UUID: GPU-x)\n\t Link 0: 26.562 GB/s\n\t Link 1: 26.562 GB/s\n';
    expect(nvlinkPerDirectionGBs(text)).toBeCloseTo(53.124, 9);
    expect(nvlinkPerDirectionGBs('GPU 0: no links')).toBeNull();
  });

  it('every collective case passes on the fakes, one line each', async () => {
    const devices = [Device.get(0), Device.get(1)];
    const comms = Communicator.initAll(devices);
    const streams = devices.map((d) => Stream.create(d));
    const lines: string[] = [];
    const failed = await runCollectiveChecks({
      comms,
      streams,
      count: 64,
      report: (name, _error, _tol, ok) => lines.push(`${ok ? 'PASS' : 'FAIL'} ${name}`),
    });
    expect(failed).toBe(0);
    // 4 kinds × (4 ops + broadcast, reduceScatter, allGather, send/recv) × 2 ranks
    expect(lines).toHaveLength(64);
    expect(lines).toContain('PASS allReduce avg bf16 rank 1');
    for (const c of comms) c.dispose();
    for (const s of streams) s.dispose();
  });
});
