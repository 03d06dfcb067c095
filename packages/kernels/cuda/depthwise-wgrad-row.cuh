// Depthwise backward-filter's pass 1 for NCDHW 3x3x3 filters with stride 1 and dilation 1 along W
// (`wgradrow`; included by depthwise.cu after depthwise-wgrad.cuh, inside its namespace). Same
// contract as `wgradSplit`: block (c, y) writes partial[y][c][t] for the 27 taps, slot y summing
// the slices y, y + gridDim.y, ... in order; pass 2 (`wgradSum`) is unchanged.
//
// Here the unit of work is a segment: kWgradRowV consecutive outputs of one output row (od, oh)
// of a sample's plane (the last segment of a row is short where outW is not a multiple of it).
// Slice k is chunk k % chunks of sample k / chunks: the segments [chunk * len, + len) of its plane.
// A thread takes the segments tid, tid + blockDim.x, ... of each slice. For a segment it loads its
// kWgradRowV dy values once, then for each of the 9 input rows (kd, kh) the segment reads, the
// kWgradRowV + 2 input values of that row once, and adds their 3 x kWgradRowV products into the 27
// sums it keeps in registers: about 2 multiply-adds a load and one position decode (two integer
// divisions) per kWgradRowV outputs, where `wgradSplit` has one multiply-add a load and a decode
// per output for each of its two tap groups. Rows outside the input are skipped; columns outside
// it read as zero. No shared memory but the block's final sums, no barrier in the loop.
// The block adds its threads' sums with wgradBlockSum (as `wgradSplit` does), so the result is a
// fixed function of the launch (no atomics).
// Taken only where depthwise-wgrad-row.ts routes it: NCDHW, a 3x3x3 filter, stride 1 and dilation
// 1 along W (any stride, dilation and padding along D and H, any padding along W).

constexpr int kWgradRowV = 4;  // outputs of a row a segment takes
constexpr int kWgradRowK = 3;  // the filter's extent on each axis

// grid (channels, slots); block (a multiple of 32, at most kWgradThreads).
template <typename T, typename Acc>
__device__ __forceinline__ void wgradRow(const T* __restrict__ x, const T* __restrict__ dy,
                                         Acc* __restrict__ partial, int batch, int channels,
                                         int inD, int inH, int inW, int outD, int outH, int outW,
                                         int sD, int sH, int pD, int pH, int pW, int dD, int dH,
                                         int chunks, int len) {
  constexpr int K = kWgradRowK, V = kWgradRowV, S = V + K - 1, TAPS = K * K * K;
  __shared__ Acc sums[kWgradThreads / 32][TAPS];
  const int tid = threadIdx.x, threads = blockDim.x;
  const int warps = threads >> 5;
  const int c = blockIdx.x;
  const int segsRow = (outW + V - 1) / V;
  const int segsPlane = outD * outH * segsRow;
  const int outPlane = outD * outH * outW, inPlane = inD * inH * inW;
  Acc acc[TAPS];
#pragma unroll
  for (int t = 0; t < TAPS; t++) acc[t] = Acc(0);
  for (int k = blockIdx.y; k < batch * chunks; k += gridDim.y) {
    int n, lo, hi;
    wgradSlice(k, chunks, len, segsPlane, &n, &lo, &hi);
    const i64 p = (i64)n * channels + c;
    const T* src = x + p * inPlane;
    const T* grad = dy + p * outPlane;
    for (int s = lo + tid; s < hi; s += threads) {
      const int row = s / segsRow;
      const int ow0 = (s - row * segsRow) * V;
      const int od = row / outH, oh = row - od * outH;
      const T* g0 = grad + row * outW + ow0;
      Acc g[V];
#pragma unroll
      for (int v = 0; v < V; v++) g[v] = ow0 + v < outW ? toAcc(g0[v]) : Acc(0);
      const int iw0 = ow0 - pW;
      bool colIn[S];
#pragma unroll
      for (int e = 0; e < S; e++) colIn[e] = iw0 + e >= 0 && iw0 + e < inW;
#pragma unroll
      for (int kd = 0; kd < K; kd++) {
        const int id = od * sD - pD + kd * dD;
        if (id < 0 || id >= inD) continue;
#pragma unroll
        for (int kh = 0; kh < K; kh++) {
          const int ih = oh * sH - pH + kh * dH;
          if (ih < 0 || ih >= inH) continue;
          const T* xr = src + (id * inH + ih) * inW;
          Acc xs[S];
#pragma unroll
          for (int e = 0; e < S; e++) xs[e] = colIn[e] ? toAcc(xr[iw0 + e]) : Acc(0);
#pragma unroll
          for (int kw = 0; kw < K; kw++) {
#pragma unroll
            for (int v = 0; v < V; v++) acc[(kd * K + kh) * K + kw] += xs[v + kw] * g[v];
          }
        }
      }
    }
  }
  const Acc v = wgradBlockSum(acc, sums, tid, warps);
  if (tid < TAPS) partial[((i64)blockIdx.y * channels + c) * TAPS + tid] = v;
}
