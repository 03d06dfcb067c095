/** The PTX of `baracuda_test_indices` (see index-ptx.mjs). */
export declare const INDEX_PTX: string;
/** What INDEX_PTX writes for `threads` threads in blocks of `blockSize`, given `n` and `tag`. */
export declare function expectedIndices(
  threads: number,
  blockSize: number,
  n: number,
  tag: bigint,
): Uint32Array;
