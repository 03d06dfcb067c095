// Depthwise backward-filter's pass 1 for NCDHW with stride 1 (`wgradtile`; included by
// depthwise.cu after depthwise-wgrad.cuh, inside its namespace). Same contract as `wgradSplit`:
// block (c, y) writes partial[y][c][t] for every tap t, slot y summing the slices y,
// y + gridDim.y, ... in order; pass 2 (`wgradSum`) is unchanged. Here slice k is chunk k % chunks
// of sample k / chunks: the output depths [chunk * len, + len) (`wgradSplit` cuts flat positions).
//
// Why a second kernel: `wgradSplit` decodes every output position with two integer divisions,
// loads each tap from global memory at a per-tap offset, takes a bounds-checked path at the
// borders and splits 27 taps over two blocks that each redo the position work. Here, for each
// output depth, the block stages the kD input slices it reads (rows and columns padded with zeros
// to the output plane plus the filter's reach, so no load needs a bounds check) in shared memory,
// in the accumulator type. dy is read straight from global memory, coalesced: each element once,
// so staging it would buy nothing and would cost shared memory (without it a 56x56 plane's f32
// tile fits in 48 KiB). Each thread then sums ALL taps (at most kWgradTileTaps)
// in registers over its fixed positions of the plane, tid, tid + blockDim.x, ..., stepping its
// (row, column) by adding, with no division. The block adds its threads' sums as `wgradSplit`
// does: a butterfly in each warp, then the warps in order. So the result is a fixed function of
// the launch (no atomics). Taken only where depthwise-wgrad-tile.ts routes it: stride 1, at most
// 27 taps, the staged tile within 48 KiB.

constexpr int kWgradTileTaps = 27;

// grid (channels, slots); block (a multiple of 32, at most 256); dynamic shared memory
// kD * Hp * Wp * sizeof(Acc), Hp = outH + (kH-1)*dH, Wp = outW + (kW-1)*dW.
template <typename T, typename Acc>
__device__ __forceinline__ void wgradTile(const T* __restrict__ x, const T* __restrict__ dy,
                                          Acc* __restrict__ partial, int batch, int channels,
                                          int inD, int inH, int inW, int outD, int outH,
                                          int outW, int kD, int kH, int kW, int pD, int pH,
                                          int pW, int dD, int dH, int dW, int chunks, int len) {
  extern __shared__ unsigned char smemBytes[];
  __shared__ Acc sums[kWgradThreads / 32][kWgradTileTaps];
  const int hp = outH + (kH - 1) * dH, wp = outW + (kW - 1) * dW;
  const int slice = hp * wp;
  Acc* xs = reinterpret_cast<Acc*>(smemBytes);  // [kD][hp][wp]
  const int tid = threadIdx.x, threads = blockDim.x;
  const int lane = tid & 31, warp = tid >> 5, warps = threads >> 5;
  const int nTaps = kD * kH * kW;
  const int c = blockIdx.x;
  const int outPlane = outD * outH * outW, plane = outH * outW;
  const int inPlane = inD * inH * inW;
  // Tap j's offset in the staged tile from its position's corner (once a thread; 0 past the last).
  int off[kWgradTileTaps];
#pragma unroll
  for (int j = 0; j < kWgradTileTaps; j++) {
    const int kd = j / (kH * kW), kh = (j / kW) % kH, kw = j % kW;
    off[j] = j < nTaps ? kd * slice + kh * dH * wp + kw * dW : 0;
  }
  // The thread's first position of the plane and the step between its positions.
  const int oh0 = tid / outW, ow0 = tid - oh0 * outW;
  const int stepH = threads / outW, stepW = threads - stepH * outW;
  Acc acc[kWgradTileTaps];
#pragma unroll
  for (int j = 0; j < kWgradTileTaps; j++) acc[j] = Acc(0);
  for (int k = blockIdx.y; k < batch * chunks; k += gridDim.y) {
    const int n = k / chunks;
    const int d0 = (k - n * chunks) * len;
    const int d1 = min(outD, d0 + len);
    const i64 p = (i64)n * channels + c;
    const T* src = x + p * inPlane;
    const T* grad = dy + p * outPlane;
    for (int od = d0; od < d1; od++) {
      __syncthreads();  // the last depth's reads are done before the tile is overwritten
      for (int kd = 0; kd < kD; kd++) {
        const int id = od - pD + kd * dD;
        const bool depthIn = id >= 0 && id < inD;
        for (int r = warp; r < hp; r += warps) {
          const int ih = r - pH;
          const bool rowIn = depthIn && ih >= 0 && ih < inH;
          const T* row = src + ((i64)id * inH + ih) * inW;
          for (int q = lane; q < wp; q += 32) {
            const int iw = q - pW;
            xs[(kd * hp + r) * wp + q] = rowIn && iw >= 0 && iw < inW ? toAcc(row[iw]) : Acc(0);
          }
        }
      }
      const T* g = grad + (i64)od * plane;
      __syncthreads();
      int oh = oh0, ow = ow0;
      for (int o = tid; o < plane; o += threads) {
        const Acc v = toAcc(g[o]);
        const Acc* corner = xs + oh * wp + ow;
#pragma unroll
        for (int j = 0; j < kWgradTileTaps; j++) {
          if (j < nTaps) acc[j] += corner[off[j]] * v;
        }
        ow += stepW;
        oh += stepH;
        if (ow >= outW) {
          ow -= outW;
          oh++;
        }
      }
    }
  }
  // A butterfly within each warp, then the warps in order (as wgradSplit).
#pragma unroll
  for (int j = 0; j < kWgradTileTaps; j++) {
    if (j < nTaps) {
      Acc v = acc[j];
#pragma unroll
      for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(0xffffffffu, v, m);
      if (lane == 0) sums[warp][j] = v;
    }
  }
  __syncthreads();
  if (tid < nTaps) {
    Acc v = Acc(0);
    for (int w = 0; w < warps; w++) v += sums[w][tid];
    partial[((i64)blockIdx.y * channels + c) * nTaps + tid] = v;
  }
}
