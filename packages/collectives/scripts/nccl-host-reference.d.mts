/** Types of nccl-host-reference.mjs (the device check's host side). */
export declare function allReduceHost(
  op: 'sum' | 'avg' | 'max' | 'min' | 'prod',
  inputs: readonly (readonly number[])[],
): number[];
export declare function reduceScatterHost(
  op: 'sum' | 'avg' | 'max' | 'min' | 'prod',
  inputs: readonly (readonly number[])[],
  rank: number,
  count: number,
): number[];
export declare function allGatherHost(inputs: readonly (readonly number[])[]): number[];
export declare function allReduceBandwidth(
  bytes: number,
  seconds: number,
  ranks: number,
): { algBw: number; busBw: number };
export declare function median(values: readonly number[]): number;
export declare function nvlinkPerDirectionGBs(text: string): number | null;
export declare function randomValues(count: number, seed: number): number[];
