// Depthwise backward-filter in two deterministic passes (included by depthwise.cu, inside its
// namespace; T, Acc, i64, toAcc and store are that file's):
//
//   dw[c, t] = alpha * sum over n and the output positions o of x[n, c, o*s - p + k(t)*d] *
//              dy[n, c, o] + beta * dw[c, t]
//
// Pass 1 (`wgrad` NCDHW, `wgradcl` NDHWC): a block owns one channel (NCDHW) or 32 consecutive
// channels (NDHWC), one group of up to 16 taps (blockIdx.z) and one partial slot (blockIdx.y).
// Slot y sums the slices y, y + gridDim.y, ... of the batch, slice k being chunk k % chunks of
// sample k / chunks: the output positions [chunk * len, + len) of one sample's output plane. Each
// thread sums its positions in increasing order, each tap's input loaded before any is summed so
// the loads are in flight together; the block then adds its threads' sums in a fixed order and
// writes the slot's partial sums, in the accumulator type, to partial[y][c][t] (plan-owned
// workspace, every element written by exactly one block). Pass 2 (`wgradsum`): one thread per
// (c, t) adds the gridDim.y partials in slot order and stores alpha * sum + beta * dw. So the
// result is a fixed function of the launch: bit-identical run to run, no atomics.
// A position whose whole window is inside the input (most of them) loads its taps at fixed
// offsets from its corner, with no bounds checks (about 15 integer operations a tap, which by
// count, not by a profile, may have bounded the old one-pass kernel's 1.0-1.4 ms on X3D's layer).
// The group's taps past the last are then read at offset 0 and summed into sums never stored.
// Needs each operand under 2^31 elements (Conv3dDescriptor checks; offsets in a sample are 32-bit).

constexpr int kWgradTaps = 16;       // taps per block (blockIdx.z picks the group)
constexpr int kWgradThreads = 256;   // NCDHW: blockDim (256); NDHWC: (32, 8)
constexpr int kWgradClRows = 8;

// The input offset (d, h, w) tap t0 + j of the block reaches past o*s - p, or d = 2^30 (never in
// range) past the last tap; computed once per block into shared memory.
__device__ __forceinline__ void wgradOffsets(int4* off, int t0, int nTaps, int kH, int kW, int dD,
                                             int dH, int dW, int tid) {
  if (tid < kWgradTaps) {
    const int t = t0 + tid;
    const int kd = t / (kH * kW), kh = (t / kW) % kH, kw = t % kW;
    off[tid] = t < nTaps ? make_int4(kd * dD, kh * dH, kw * dW, 0) : make_int4(0x40000000, 0, 0, 0);
  }
  __syncthreads();
}

// The offset of tap t0 + j from a window's corner in one sample (`step`: elements an input
// position apart: 1 in NCDHW, C in NDHWC), 0 past the last tap.
__device__ __forceinline__ int wgradLinear(int t, int nTaps, int kH, int kW, int dD, int dH,
                                           int dW, int inH, int inW, int step) {
  if (t >= nTaps) return 0;
  const int kd = t / (kH * kW), kh = (t / kW) % kH, kw = t % kW;
  return ((kd * dD * inH + kh * dH) * inW + kw * dW) * step;
}

// Whether the whole window at corner (id0, ih0, iw0) is inside the input.
__device__ __forceinline__ bool wgradInside(int id0, int ih0, int iw0, int inD, int inH, int inW,
                                            int kD, int kH, int kW, int dD, int dH, int dW) {
  return id0 >= 0 && id0 + (kD - 1) * dD < inD && ih0 >= 0 && ih0 + (kH - 1) * dH < inH &&
         iw0 >= 0 && iw0 + (kW - 1) * dW < inW;
}

// The slice `k` of a launch: its sample, and its first and last + 1 output position in the plane.
__device__ __forceinline__ void wgradSlice(int k, int chunks, int len, int outPlane, int* n,
                                           int* lo, int* hi) {
  *n = k / chunks;
  *lo = (k - *n * chunks) * len;
  *hi = min(outPlane, *lo + len);
}

// Position o of an output plane as (od, oh, ow) and the input corner o*s - p.
__device__ __forceinline__ void wgradCorner(int o, int outH, int outW, int sD, int sH, int sW,
                                            int pD, int pH, int pW, int* id0, int* ih0, int* iw0) {
  const int od = o / (outH * outW);
  const int r = o - od * outH * outW;
  const int oh = r / outW;
  *id0 = od * sD - pD;
  *ih0 = oh * sH - pH;
  *iw0 = (r - oh * outW) * sW - pW;
}

// The block's sum of its threads' N tap sums acc[j]: a butterfly within each warp, then the warps
// in order (so the order is a fixed function of the launch). `sums` is the caller's shared
// [kWgradThreads / 32][N]; thread j < N gets tap j's sum, the others 0. A barrier: every thread
// of the block calls it. Pass 1 of both NCDHW kernels (wgradSplit, wgradRow) ends with it.
template <int N, typename Acc>
__device__ __forceinline__ Acc wgradBlockSum(const Acc (&acc)[N], Acc (*sums)[N], int tid,
                                             int warps) {
  const int lane = tid & 31, warp = tid >> 5;
#pragma unroll
  for (int j = 0; j < N; j++) {
    Acc v = acc[j];
#pragma unroll
    for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(0xffffffffu, v, m);
    if (lane == 0) sums[warp][j] = v;
  }
  __syncthreads();
  Acc v = Acc(0);
  if (tid < N) {
    for (int w = 0; w < warps; w++) v += sums[w][tid];
  }
  return v;
}

// grid (channels, slots, tap groups); block (256). x, dy NCDHW; partial [slots][C][taps].
template <typename T, typename Acc>
__device__ __forceinline__ void wgradSplit(const T* __restrict__ x, const T* __restrict__ dy,
                                           Acc* __restrict__ partial, int batch, int channels,
                                           int inD, int inH, int inW, int outD, int outH,
                                           int outW, int kD, int kH, int kW, int sD, int sH,
                                           int sW, int pD, int pH, int pW, int dD, int dH, int dW,
                                           int chunks, int len) {
  __shared__ int4 off[kWgradTaps];
  __shared__ Acc sums[kWgradThreads / 32][kWgradTaps];
  const int tid = threadIdx.x;
  const int nTaps = kD * kH * kW;
  const int t0 = blockIdx.z * kWgradTaps;
  const int c = blockIdx.x;
  wgradOffsets(off, t0, nTaps, kH, kW, dD, dH, dW, tid);
  const int outPlane = outD * outH * outW;
  const int inPlane = inD * inH * inW;
  int lin[kWgradTaps];
#pragma unroll
  for (int j = 0; j < kWgradTaps; j++) lin[j] = wgradLinear(t0 + j, nTaps, kH, kW, dD, dH, dW, inH, inW, 1);
  Acc acc[kWgradTaps];
#pragma unroll
  for (int j = 0; j < kWgradTaps; j++) acc[j] = Acc(0);
  for (int k = blockIdx.y; k < batch * chunks; k += gridDim.y) {
    int n, lo, hi;
    wgradSlice(k, chunks, len, outPlane, &n, &lo, &hi);
    const i64 plane = (i64)n * channels + c;
    const T* src = x + plane * inPlane;
    const T* grad = dy + plane * outPlane;
    for (int o = lo + tid; o < hi; o += kWgradThreads) {
      int id0, ih0, iw0;
      wgradCorner(o, outH, outW, sD, sH, sW, pD, pH, pW, &id0, &ih0, &iw0);
      const Acc g = toAcc(grad[o]);
      Acc v[kWgradTaps];
      if (wgradInside(id0, ih0, iw0, inD, inH, inW, kD, kH, kW, dD, dH, dW)) {
        const T* corner = src + (id0 * inH + ih0) * inW + iw0;
#pragma unroll
        for (int j = 0; j < kWgradTaps; j++) v[j] = toAcc(corner[lin[j]]);
      } else {
#pragma unroll
        for (int j = 0; j < kWgradTaps; j++) {
          // Read from shared memory each time (volatile): held in registers they took 48.
          const volatile int* q = reinterpret_cast<volatile int*>(off + j);
          const int id = id0 + q[0], ih = ih0 + q[1], iw = iw0 + q[2];
          const bool in = id >= 0 && id < inD && ih >= 0 && ih < inH && iw >= 0 && iw < inW;
          v[j] = in ? toAcc(src[(id * inH + ih) * inW + iw]) : Acc(0);
        }
      }
#pragma unroll
      for (int j = 0; j < kWgradTaps; j++) acc[j] += v[j] * g;
    }
  }
  const Acc v = wgradBlockSum(acc, sums, tid, kWgradThreads / 32);
  if (tid < kWgradTaps && t0 + tid < nTaps) {
    partial[((i64)blockIdx.y * channels + c) * nTaps + t0 + tid] = v;
  }
}

// grid (ceil(channels / 32), slots, tap groups); block (32, 8): lane tx takes channel
// blockIdx.x * 32 + tx, row ty the positions lo + ty, lo + ty + 8, ... of each slice; x, dy NDHWC.
template <typename T, typename Acc>
__device__ __forceinline__ void wgradSplitCl(const T* __restrict__ x, const T* __restrict__ dy,
                                             Acc* __restrict__ partial, int batch, int channels,
                                             int inD, int inH, int inW, int outD, int outH,
                                             int outW, int kD, int kH, int kW, int sD, int sH,
                                             int sW, int pD, int pH, int pW, int dD, int dH,
                                             int dW, int chunks, int len) {
  __shared__ int4 off[kWgradTaps];
  __shared__ Acc sums[kWgradClRows][kWgradTaps][32];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int tid = ty * 32 + tx;
  const int nTaps = kD * kH * kW;
  const int t0 = blockIdx.z * kWgradTaps;
  const int c = blockIdx.x * 32 + tx;
  const bool mine = c < channels;
  wgradOffsets(off, t0, nTaps, kH, kW, dD, dH, dW, tid);
  const int outPlane = outD * outH * outW;
  const int inPlane = inD * inH * inW;
  int lin[kWgradTaps];
#pragma unroll
  for (int j = 0; j < kWgradTaps; j++) {
    lin[j] = wgradLinear(t0 + j, nTaps, kH, kW, dD, dH, dW, inH, inW, channels);
  }
  Acc acc[kWgradTaps];
#pragma unroll
  for (int j = 0; j < kWgradTaps; j++) acc[j] = Acc(0);
  // A lane past the last channel reads channel 0 and sums into sums never stored.
  const int ch = mine ? c : 0;
  for (int k = blockIdx.y; k < batch * chunks; k += gridDim.y) {
    int n, lo, hi;
    wgradSlice(k, chunks, len, outPlane, &n, &lo, &hi);
    const T* src = x + (i64)n * inPlane * channels + ch;
    const T* grad = dy + (i64)n * outPlane * channels + ch;
    for (int o = lo + ty; o < hi; o += kWgradClRows) {
      int id0, ih0, iw0;
      wgradCorner(o, outH, outW, sD, sH, sW, pD, pH, pW, &id0, &ih0, &iw0);
      const Acc g = toAcc(grad[o * channels]);
      Acc v[kWgradTaps];
      if (wgradInside(id0, ih0, iw0, inD, inH, inW, kD, kH, kW, dD, dH, dW)) {
        const T* corner = src + ((id0 * inH + ih0) * inW + iw0) * channels;
#pragma unroll
        for (int j = 0; j < kWgradTaps; j++) v[j] = toAcc(corner[lin[j]]);
      } else {
#pragma unroll
        for (int j = 0; j < kWgradTaps; j++) {
          // Read from shared memory each time (volatile): held in registers they took 48.
          const volatile int* q = reinterpret_cast<volatile int*>(off + j);
          const int id = id0 + q[0], ih = ih0 + q[1], iw = iw0 + q[2];
          const bool in = id >= 0 && id < inD && ih >= 0 && ih < inH && iw >= 0 && iw < inW;
          v[j] = in ? toAcc(src[((id * inH + ih) * inW + iw) * channels]) : Acc(0);
        }
      }
#pragma unroll
      for (int j = 0; j < kWgradTaps; j++) acc[j] += v[j] * g;
    }
  }
  // The rows in order, for each (tap, channel).
#pragma unroll
  for (int j = 0; j < kWgradTaps; j++) sums[ty][j][tx] = acc[j];
  __syncthreads();
  for (int e = tid; e < kWgradTaps * 32; e += 32 * kWgradClRows) {
    const int j = e / 32, lane = e % 32;
    const int ch = blockIdx.x * 32 + lane;
    if (ch < channels && t0 + j < nTaps) {
      Acc v = Acc(0);
#pragma unroll
      for (int r = 0; r < kWgradClRows; r++) v += sums[r][j][lane];
      partial[((i64)blockIdx.y * channels + ch) * nTaps + t0 + j] = v;
    }
  }
}

// Pass 2: dw[e] = alpha * sum over the slots s in order of partial[s][e] + beta * dw[e], for the
// `count` = C * taps elements of dw (grid-stride).
template <typename T, typename Acc>
__device__ __forceinline__ void wgradSum(const Acc* __restrict__ partial, T* __restrict__ dw,
                                         i64 count, int slots, Acc alpha, Acc beta) {
  for (i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x; e < count;
       e += (i64)gridDim.x * blockDim.x) {
    Acc v = Acc(0);
    for (int s = 0; s < slots; s++) v += partial[s * count + e];
    store<T, Acc>(dw, e, v, alpha, beta);
  }
}
