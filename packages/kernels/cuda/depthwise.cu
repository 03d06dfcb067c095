// Depthwise 3-D convolution (groups == C_in == C_out) in NCDHW and NDHWC: the forward and
// backward-data passes of Conv3dPlan's 'native' path (see src/depthwise.ts). cuDNN has no fast
// kernel for it (on an H200 its best engines took 2.3x PyTorch's own depthwise kernel on X3D's
// layer in NCDHW, and ~1.4 ms, under 2% of the roofline, in NDHWC f16/bf16).
//
//   forward   y[n,c,o]  = alpha * sum_k w[c,k] * x[n,c, o*s - p + k*d] + beta * y[n,c,o]
//   bwData    dx[n,c,i] = alpha * sum_{k, o*s = i + p - k*d} w[c,k] * dy[n,c,o] + beta * dx[n,c,i]
//
// Kernels per element type:
// - `tiled` (stride 1): a block owns a tile of one output plane over a chunk of output depths and
//   marches through the input slices in depth, staging each in shared memory once and adding its
//   taps to every output depth it feeds, held in registers. With `flip` it runs the filter
//   reversed, which is backward-data of a stride-1 convolution with padding d*(k-1) - p.
// - `gather`: one thread per output element, any stride, padding and dilation (both passes).
// - `clvec` (NDHWC): consecutive threads take consecutive groups of up to 16 bytes of channels of
//   one output position, so every tap's loads are coalesced across the channels; the filter is
//   staged in shared memory, transposed to [tap][channel].
// - `gathercl`: `clvec` with one channel per thread reading the filter from global memory, for
//   filters too big to stage in shared memory.
// - `clmarch` (NDHWC, stride 1): `clvec`'s channel groups marching in depth as `tiled` does
//   (depthwise-march.cuh).
// Backward-filter (both layouts) is two passes, partial sums over slices of the batch into
// plan-owned workspace and then their fixed-order sum (depthwise-wgrad.cuh; NCDHW 3x3x3 filters
// with stride and dilation 1 along W take the row-segment pass 1 of depthwise-wgrad-row.cuh).
// Accumulation is in f32 (f64 for f64). Each output is summed in a fixed order, so results are
// deterministic. beta == 0 never reads the output (it may hold NaN).
// Offsets are 64-bit; extents are 32-bit (Conv3dDescriptor checks they fit).
//
// Regenerate src/depthwise-ptx.ts with `node scripts/gen-ptx.mjs` (needs nvcc); a test checks it
// is current whenever nvcc is present.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace baracuda_depthwise {

typedef long long i64;

__device__ __forceinline__ float toAcc(float v) { return v; }
__device__ __forceinline__ double toAcc(double v) { return v; }
__device__ __forceinline__ float toAcc(__half v) { return __half2float(v); }
__device__ __forceinline__ float toAcc(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T>
__device__ __forceinline__ T fromAcc(float v);
template <>
__device__ __forceinline__ float fromAcc<float>(float v) { return v; }
template <>
__device__ __forceinline__ __half fromAcc<__half>(float v) { return __float2half_rn(v); }
template <>
__device__ __forceinline__ __nv_bfloat16 fromAcc<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

template <typename T, typename Acc>
__device__ __forceinline__ void store(T* out, i64 at, Acc acc, Acc alpha, Acc beta) {
  Acc v = alpha * acc;
  if (beta != Acc(0)) v += beta * toAcc(out[at]);
  out[at] = fromAcc<T>(v);
}
template <>
__device__ __forceinline__ void store<double, double>(double* out, i64 at, double acc,
                                                      double alpha, double beta) {
  double v = alpha * acc;
  if (beta != 0.0) v += beta * out[at];
  out[at] = v;
}

// The input index tap k of output o reads along one dimension: o*s - p + k*d (forward), or for
// backward-data (o + p - k*d) / s when s divides it; -1 when there is none in [0, extent).
__device__ __forceinline__ int reach(int o, int k, int s, int p, int d, int backward, int extent) {
  int a;
  if (backward) {
    const int num = o + p - k * d;
    if (num < 0 || num % s != 0) return -1;
    a = num / s;
  } else {
    a = o * s - p + k * d;
  }
  return a >= 0 && a < extent ? a : -1;
}

// The output position `rest` (< outD * outH * outW) as (o0, o1, o2); then visit(at, t) for every
// tap t = (kd * kH + kh) * kW + kw whose input position is in range, `at` being that position's
// index in one [inD][inH][inW] plane. What `gather` (NCDHW) and `clvec` (NDHWC) share.
template <typename Visit>
__device__ __forceinline__ void forEachTap(i64 rest, int inD, int inH, int inW, int outH, int outW,
                                           int kD, int kH, int kW, int sD, int sH, int sW, int pD,
                                           int pH, int pW, int dD, int dH, int dW, int backward,
                                           Visit visit) {
  const int o0 = (int)(rest / ((i64)outH * outW));
  rest -= (i64)o0 * outH * outW;
  const int o1 = (int)(rest / outW);
  const int o2 = (int)(rest - (i64)o1 * outW);
  for (int kd = 0; kd < kD; kd++) {
    const int a = reach(o0, kd, sD, pD, dD, backward, inD);
    if (a < 0) continue;
    for (int kh = 0; kh < kH; kh++) {
      const int b = reach(o1, kh, sH, pH, dH, backward, inH);
      if (b < 0) continue;
      for (int kw = 0; kw < kW; kw++) {
        const int cc = reach(o2, kw, sW, pW, dW, backward, inW);
        if (cc < 0) continue;
        visit(((i64)a * inH + b) * inW + cc, (kd * kH + kh) * kW + kw);
      }
    }
  }
}

constexpr int kTileW = 32;
constexpr int kRowsPerPass = 8;  // blockDim (32, 8)
constexpr int kThreads = kTileW * kRowsPerPass;
constexpr int kMaxRows = 4;   // output rows per thread at most, kRowsPerPass apart
constexpr int kPatchLoads = 6;  // patch elements per thread at most: patches of up to 1536

#include "depthwise-tiled.cuh"

// One thread per output element (grid-stride), NCDHW: element e is (n, channel, position).
// backward == 0: forward (in = x, out = y); backward == 1: backward-data (in = dy, out = dx),
// summing the taps whose forward window hits the element. in*/out* are this launch's operand
// extents; strides, pads and dilations are the forward convolution's. The filter is [C][kD][kH][kW].
template <typename T, typename Acc>
__device__ __forceinline__ void gather(const T* __restrict__ in, const T* __restrict__ w,
                                       T* __restrict__ out, i64 planes, int channels, int inD,
                                       int inH, int inW, int outD, int outH, int outW, int kD,
                                       int kH, int kW, int sD, int sH, int sW, int pD, int pH,
                                       int pW, int dD, int dH, int dW, int backward, Acc alpha,
                                       Acc beta) {
  const i64 outPlane = (i64)outD * outH * outW;
  const i64 inPlane = (i64)inD * inH * inW;
  const i64 total = planes * outPlane;
  const int nTaps = kD * kH * kW;
  for (i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x; e < total;
       e += (i64)gridDim.x * blockDim.x) {
    const i64 plane = e / outPlane;
    const int c = (int)(plane % channels);
    const T* src = in + plane * inPlane;
    const T* taps = w + (i64)c * nTaps;
    Acc acc = Acc(0);
    forEachTap(e - plane * outPlane, inD, inH, inW, outH, outW, kD, kH, kW, sD, sH, sW, pD, pH, pW,
               dD, dH, dW, backward,
               [&](i64 at, int t) { acc += toAcc(src[at]) * toAcc(taps[t]); });
    store<T, Acc>(out, e, acc, alpha, beta);
  }
}

// `gather` in NDHWC with `V` channels per thread: each tap is one V-wide load of the input (16
// bytes when V * sizeof(T) is 16). STAGED: the filter was staged in shared memory, transposed to
// [tap][channel] in the accumulator type (`wt`), and each tap is V reads of it; otherwise each tap
// reads the filter [C][kD][kH][kW] from global memory (`w`). Needs channels % V == 0; the vector
// loads also need `in` aligned to V * sizeof(T) bytes, else each thread loads one channel at a
// time (the same for the whole launch). Grid-stride, so the filter is staged once per block.
template <typename T, int V>
struct __align__(sizeof(T) * V) Pack {
  T v[V];
};

template <typename T, typename Acc, int V, bool STAGED>
__device__ __forceinline__ void clvec(const T* __restrict__ in, const Acc* __restrict__ wt,
                                      const T* __restrict__ w, T* __restrict__ out, i64 batch,
                                      int channels, int inD,
                                      int inH, int inW, int outD, int outH, int outW, int kD,
                                      int kH, int kW, int sD, int sH, int sW, int pD, int pH,
                                      int pW, int dD, int dH, int dW, int backward, Acc alpha,
                                      Acc beta) {
  const i64 outPlane = (i64)outD * outH * outW;
  const i64 inPlane = (i64)inD * inH * inW;
  const int vecs = channels / V;
  const int nTaps = kD * kH * kW;
  const i64 total = batch * outPlane * vecs;
  const bool aligned = (reinterpret_cast<unsigned long long>(in) % (sizeof(T) * V)) == 0;
  for (i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x; e < total;
       e += (i64)gridDim.x * blockDim.x) {
    const i64 pixel = e / vecs;  // n * outPlane + position
    const int c0 = (int)(e - pixel * vecs) * V;
    const i64 n = pixel / outPlane;
    const T* src = in + n * inPlane * channels + c0;
    Acc acc[V];
#pragma unroll
    for (int j = 0; j < V; j++) acc[j] = Acc(0);
    forEachTap(pixel - n * outPlane, inD, inH, inW, outH, outW, kD, kH, kW, sD, sH, sW, pD, pH, pW,
               dD, dH, dW, backward, [&](i64 position, int t) {
                 const T* at = src + position * channels;
                 const Acc* tap = STAGED ? wt + t * channels + c0 : nullptr;
                 // Channel c0 + j's weight of tap t.
                 auto weight = [&](int j) -> Acc {
                   return STAGED ? tap[j] : toAcc(w[(i64)(c0 + j) * nTaps + t]);
                 };
                 if (aligned) {
                   const Pack<T, V> p = *reinterpret_cast<const Pack<T, V>*>(at);
#pragma unroll
                   for (int j = 0; j < V; j++) acc[j] += toAcc(p.v[j]) * weight(j);
                 } else {
#pragma unroll
                   for (int j = 0; j < V; j++) acc[j] += toAcc(at[j]) * weight(j);
                 }
               });
    const i64 base = pixel * channels + c0;
#pragma unroll
    for (int j = 0; j < V; j++) store<T, Acc>(out, base + j, acc[j], alpha, beta);
  }
}

#include "depthwise-wgrad.cuh"
#include "depthwise-wgrad-row.cuh"
#include "depthwise-march.cuh"

// Stage the filter [C][taps] in shared memory as [tap][C] in the accumulator type.
template <typename T, typename Acc>
__device__ __forceinline__ Acc* stageFilter(const T* __restrict__ w, int channels, int nTaps) {
  extern __shared__ unsigned char smemBytes[];
  Acc* wt = reinterpret_cast<Acc*>(smemBytes);
  for (int i = threadIdx.x; i < nTaps * channels; i += blockDim.x) {
    const int t = i / channels;
    const int c = i - t * channels;
    wt[i] = toAcc(w[(i64)c * nTaps + t]);
  }
  __syncthreads();
  return wt;
}

}  // namespace baracuda_depthwise

// The parameters gather, gathercl and clvec share: the operands (in, w, out: x, w, y forward;
// dy, w, dx backward-data), N * C, then the extents, strides, pads and dilations (wgrad and
// wgradcl take the same, with x, dy and the partial sums as operands).
#define BARACUDA_DEPTHWISE_PARAMS(T, ACC)                                                       \
  const T *in, const T *w, T *out, long long planes, int channels, int inD, int inH, int inW,   \
      int outD, int outH, int outW, int kD, int kH, int kW, int sD, int sH, int sW, int pD,      \
      int pH, int pW, int dD, int dH, int dW
#define BARACUDA_DEPTHWISE_ARGS                                                                 \
  in, w, out, planes, channels, inD, inH, inW, outD, outH, outW, kD, kH, kW, sD, sH, sW, pD,    \
      pH, pW, dD, dH, dW

// tiled: SPAN 3 (filter depth reach (kD-1)*dD + 1 of at most 3: 3x3x3; its 3x3 planes with
// dH = 1 take the taps in registers) and 8. BOUNDS: __launch_bounds__'s arguments, the second the
// blocks an SM must hold (registers capped to fit). On an H200 X3D's layer took, without it
// (2 blocks) and with 3: f32 0.1268 and 0.1312 ms, f16 0.1871 and 0.1597, bf16 0.2079 and 0.1762,
// f64 0.2221 and 0.1931 (run 51).
#define BARACUDA_DEPTHWISE_TILED(SUFFIX, T, ACC, SPAN, BOUNDS)                                 \
  extern "C" __global__ void __launch_bounds__ BOUNDS                                          \
      baracuda_depthwise_tiled##SPAN##_##SUFFIX(                                               \
      const T* in, const T* w, T* out, long long planes, int channels, int inD, int inH,       \
      int inW, int outD, int outH, int outW, int kD, int kH, int kW, int pD, int pH, int pW,   \
      int dD, int dH, int dW, int flip, int tilesW, int chunk, int rows, ACC alpha, ACC beta) { \
    if (SPAN == 3 && kH == 3 && kW == 3 && dH == 1)                                           \
      baracuda_depthwise::tiled<T, ACC, SPAN, true>(in, w, out, planes, channels, inD, inH, inW, \
                                                    outD, outH, outW, kD, kH, kW, pD, pH, pW,    \
                                                    dD, dH, dW, flip, tilesW, chunk, rows,       \
                                                    alpha, beta);                                \
    else                                                                                       \
      baracuda_depthwise::tiled<T, ACC, SPAN, false>(in, w, out, planes, channels, inD, inH,     \
                                                     inW, outD, outH, outW, kD, kH, kW, pD, pH,  \
                                                     pW, dD, dH, dW, flip, tilesW, chunk, rows,  \
                                                     alpha, beta);                               \
  }
#define BARACUDA_DEPTHWISE(SUFFIX, T, ACC, BOUNDS3)                                            \
  BARACUDA_DEPTHWISE_TILED(SUFFIX, T, ACC, 3, BOUNDS3)                                         \
  BARACUDA_DEPTHWISE_TILED(SUFFIX, T, ACC, 8, (256))                                           \
  extern "C" __global__ void __launch_bounds__(256)                                           \
      baracuda_depthwise_gather_##SUFFIX(BARACUDA_DEPTHWISE_PARAMS(T, ACC), int backward,       \
                                         ACC alpha, ACC beta) {                                 \
    baracuda_depthwise::gather<T, ACC>(BARACUDA_DEPTHWISE_ARGS, backward, alpha, beta);         \
  }                                                                                            \
  extern "C" __global__ void __launch_bounds__(256)                                           \
      baracuda_depthwise_gathercl_##SUFFIX(BARACUDA_DEPTHWISE_PARAMS(T, ACC), int backward,     \
                                           ACC alpha, ACC beta) {                               \
    baracuda_depthwise::clvec<T, ACC, 1, false>(in, nullptr, w, out, planes / channels,        \
                                                channels, inD, inH, inW, outD, outH, outW, kD, \
                                                kH, kW, sD, sH, sW, pD, pH, pW, dD, dH, dW,    \
                                                backward, alpha, beta);                        \
  }                                                                                            \
  extern "C" __global__ void __launch_bounds__(256) baracuda_depthwise_wgrad_##SUFFIX(          \
      const T* in, const T* dy, ACC* partial, long long planes, int channels, int inD, int inH, \
      int inW, int outD, int outH, int outW, int kD, int kH, int kW, int sD, int sH, int sW,   \
      int pD, int pH, int pW, int dD, int dH, int dW, int chunks, int len) {                   \
    baracuda_depthwise::wgradSplit<T, ACC>(in, dy, partial, (int)(planes / channels), channels, \
                                           inD, inH, inW, outD, outH, outW, kD, kH, kW, sD, sH, \
                                           sW, pD, pH, pW, dD, dH, dW, chunks, len);            \
  }                                                                                            \
  extern "C" __global__ void __launch_bounds__(256) baracuda_depthwise_wgradrow_##SUFFIX(       \
      const T* in, const T* dy, ACC* partial, long long planes, int channels, int inD, int inH, \
      int inW, int outD, int outH, int outW, int kD, int kH, int kW, int sD, int sH, int sW,   \
      int pD, int pH, int pW, int dD, int dH, int dW, int chunks, int len) {                   \
    baracuda_depthwise::wgradRow<T, ACC>(in, dy, partial, (int)(planes / channels), channels,  \
                                         inD, inH, inW, outD, outH, outW, sD, sH, pD, pH, pW,   \
                                         dD, dH, chunks, len);                                  \
  }                                                                                            \
  extern "C" __global__ void __launch_bounds__(256) baracuda_depthwise_wgradcl_##SUFFIX(        \
      const T* in, const T* dy, ACC* partial, long long planes, int channels, int inD, int inH, \
      int inW, int outD, int outH, int outW, int kD, int kH, int kW, int sD, int sH, int sW,   \
      int pD, int pH, int pW, int dD, int dH, int dW, int chunks, int len) {                   \
    baracuda_depthwise::wgradSplitCl<T, ACC>(in, dy, partial, (int)(planes / channels),        \
                                             channels, inD, inH, inW, outD, outH, outW, kD, kH, \
                                             kW, sD, sH, sW, pD, pH, pW, dD, dH, dW, chunks,    \
                                             len);                                             \
  }                                                                                            \
  extern "C" __global__ void __launch_bounds__(256) baracuda_depthwise_wgradsum_##SUFFIX(       \
      const ACC* partial, T* dw, long long count, int slots, ACC alpha, ACC beta) {             \
    baracuda_depthwise::wgradSum<T, ACC>(partial, dw, count, slots, alpha, beta);              \
  }

// clvec: planes = N * C as for the other kernels; `vec` (V) is 1, 2, 4 or 8 and divides channels
// (8 only for 2-byte elements, 4 at most for f32, 2 for f64: 16-byte loads at most); dynamic
// shared memory kD*kH*kW*channels*sizeof(ACC).
#define BARACUDA_DEPTHWISE_CLVEC(SUFFIX, T, ACC, CASES)                                        \
  extern "C" __global__ void __launch_bounds__(256) baracuda_depthwise_clvec_##SUFFIX(         \
      BARACUDA_DEPTHWISE_PARAMS(T, ACC), int backward, int vec, ACC alpha, ACC beta) {         \
    using namespace baracuda_depthwise;                                                        \
    const ACC* wt = stageFilter<T, ACC>(w, channels, kD * kH * kW);                            \
    const i64 batch = planes / channels;                                                       \
    switch (vec) { CASES }                                                                     \
  }
// clmarch (depthwise-march.cuh): ints channels, in D/H/W, out D/H/W, filter D/H/W, pads D/H/W,
// dilations D/H/W, flip, vec, chunks, len; dynamic shared memory kD*kH*kW*channels*sizeof(ACC).
#define BARACUDA_DEPTHWISE_CLMARCH(SUFFIX, T, ACC, CASES)                                      \
  extern "C" __global__ void __launch_bounds__(256) baracuda_depthwise_clmarch_##SUFFIX(       \
      const T* in, const T* w, T* out, long long planes, int channels, int inD, int inH,       \
      int inW, int outD, int outH, int outW, int kD, int kH, int kW, int pD, int pH, int pW,   \
      int dD, int dH, int dW, int flip, int vec, int chunks, int len, ACC alpha, ACC beta) {   \
    using namespace baracuda_depthwise;                                                        \
    const ACC* wt = stageFilter<T, ACC>(w, channels, kD * kH * kW);                            \
    const i64 batch = planes / channels;                                                       \
    switch (vec) { CASES }                                                                     \
  }
#define BARACUDA_CLMARCH_CASE(T, ACC, V)                                                        \
  case V:                                                                                      \
    baracuda_depthwise::clmarch<T, ACC, V>(in, wt, out, batch, channels, inD, inH, inW, outD,   \
                                           outH, outW, kD, kH, kW, pD, pH, pW, dD, dH, dW,      \
                                           flip, chunks, len, alpha, beta);                     \
    break;
#define BARACUDA_CLVEC_CASE(T, ACC, V)                                                          \
  case V:                                                                                      \
    baracuda_depthwise::clvec<T, ACC, V, true>(in, wt, w, out, batch, channels, inD, inH, inW,  \
                                               outD, outH, outW, kD, kH, kW, sD, sH, sW, pD, pH, \
                                               pW, dD, dH, dW, backward, alpha, beta);           \
    break;

BARACUDA_DEPTHWISE(f32, float, float, (256))
BARACUDA_DEPTHWISE(f64, double, double, (256, 3))
BARACUDA_DEPTHWISE(f16, __half, float, (256, 3))
BARACUDA_DEPTHWISE(bf16, __nv_bfloat16, float, (256, 3))
BARACUDA_DEPTHWISE_CLVEC(f32, float, float,
                         BARACUDA_CLVEC_CASE(float, float, 4) BARACUDA_CLVEC_CASE(float, float, 2)
                             BARACUDA_CLVEC_CASE(float, float, 1))
BARACUDA_DEPTHWISE_CLVEC(f64, double, double,
                         BARACUDA_CLVEC_CASE(double, double, 2)
                             BARACUDA_CLVEC_CASE(double, double, 1))
BARACUDA_DEPTHWISE_CLVEC(f16, __half, float,
                         BARACUDA_CLVEC_CASE(__half, float, 8) BARACUDA_CLVEC_CASE(__half, float, 4)
                             BARACUDA_CLVEC_CASE(__half, float, 2)
                                 BARACUDA_CLVEC_CASE(__half, float, 1))
BARACUDA_DEPTHWISE_CLVEC(bf16, __nv_bfloat16, float,
                         BARACUDA_CLVEC_CASE(__nv_bfloat16, float, 8)
                             BARACUDA_CLVEC_CASE(__nv_bfloat16, float, 4)
                                 BARACUDA_CLVEC_CASE(__nv_bfloat16, float, 2)
                                     BARACUDA_CLVEC_CASE(__nv_bfloat16, float, 1))
BARACUDA_DEPTHWISE_CLMARCH(f32, float, float,
                           BARACUDA_CLMARCH_CASE(float, float, 4)
                               BARACUDA_CLMARCH_CASE(float, float, 2)
                                   BARACUDA_CLMARCH_CASE(float, float, 1))
BARACUDA_DEPTHWISE_CLMARCH(f64, double, double,
                           BARACUDA_CLMARCH_CASE(double, double, 2)
                               BARACUDA_CLMARCH_CASE(double, double, 1))
BARACUDA_DEPTHWISE_CLMARCH(f16, __half, float,
                           BARACUDA_CLMARCH_CASE(__half, float, 8)
                               BARACUDA_CLMARCH_CASE(__half, float, 4)
                                   BARACUDA_CLMARCH_CASE(__half, float, 2)
                                       BARACUDA_CLMARCH_CASE(__half, float, 1))
BARACUDA_DEPTHWISE_CLMARCH(bf16, __nv_bfloat16, float,
                           BARACUDA_CLMARCH_CASE(__nv_bfloat16, float, 8)
                               BARACUDA_CLMARCH_CASE(__nv_bfloat16, float, 4)
                                   BARACUDA_CLMARCH_CASE(__nv_bfloat16, float, 2)
                                       BARACUDA_CLMARCH_CASE(__nv_bfloat16, float, 1))
