// The epilogue of a convolution where cuDNN runs no fused graph for it (see src/epilogue/), and
// the two pieces of its training backward:
//
//   apply     y[i] = act(y[i] + bias[c(i)] + z[i])      in place, after the convolution wrote y
//             (pre[i] = the value before act, when a pre-activation buffer is given)
//   actGrad   dyPre[i] = dy[i] * act'(.)                from the output y (relu, sigmoid, tanh,
//             clamp) or from the pre-activation (leakyRelu, gelu, geluTanh, silu); may be in place
//   biasGrad  dBias[c] = sum over n and space of dy     one block per channel, a fixed order
//
// The channel of element i is (i / inner) % channels: inner is D*H*W for NCDHW, 1 for NDHWC.
// Math in f32 for f16, bf16 and f32; f64 for f64. biasGrad sums each thread's share in a fixed
// order and then the block's partial sums in a fixed tree, so it is deterministic.
//
// Regenerate src/epilogue-ptx.ts with `node scripts/gen-ptx.mjs` (needs nvcc).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace baracuda_epilogue {

typedef unsigned long long u64;

__device__ __forceinline__ float load(const float* p, u64 i) { return p[i]; }
__device__ __forceinline__ double load(const double* p, u64 i) { return p[i]; }
__device__ __forceinline__ float load(const __half* p, u64 i) { return __half2float(p[i]); }
__device__ __forceinline__ float load(const __nv_bfloat16* p, u64 i) {
  return __bfloat162float(p[i]);
}
__device__ __forceinline__ void put(float* p, u64 i, float v) { p[i] = v; }
__device__ __forceinline__ void put(double* p, u64 i, double v) { p[i] = v; }
__device__ __forceinline__ void put(__half* p, u64 i, float v) { p[i] = __float2half_rn(v); }
__device__ __forceinline__ void put(__nv_bfloat16* p, u64 i, float v) {
  p[i] = __float2bfloat16_rn(v);
}

// The codes of src/epilogue/epilogue.ts's ACTIVATION_CODE.
enum Act { kIdentity = 0, kRelu, kLeaky, kGelu, kGeluTanh, kSilu, kSigmoid, kTanh, kClamp };

template <typename A>
struct Math;
template <>
struct Math<float> {
  static __device__ __forceinline__ float exp(float v) { return expf(v); }
  static __device__ __forceinline__ float tanh(float v) { return tanhf(v); }
  static __device__ __forceinline__ float erf(float v) { return erff(v); }
};
template <>
struct Math<double> {
  static __device__ __forceinline__ double exp(double v) { return ::exp(v); }
  static __device__ __forceinline__ double tanh(double v) { return ::tanh(v); }
  static __device__ __forceinline__ double erf(double v) { return ::erf(v); }
};

// sqrt(2/pi) and 1/sqrt(2), 1/sqrt(2*pi).
#define K_SQRT_2_OVER_PI 0.7978845608028654
#define K_INV_SQRT2 0.7071067811865476
#define K_INV_SQRT_2PI 0.3989422804014327

template <typename A>
__device__ __forceinline__ A sigmoid(A v) {
  return A(1) / (A(1) + Math<A>::exp(-v));
}

template <typename A>
__device__ __forceinline__ A activate(int act, A v, A slope, A lo, A hi) {
  switch (act) {
    case kRelu:
      return v > A(0) ? v : A(0);
    case kLeaky:
      return v > A(0) ? v : v * slope;
    case kGelu:
      return A(0.5) * v * (A(1) + Math<A>::erf(v * A(K_INV_SQRT2)));
    case kGeluTanh:
      return A(0.5) * v *
             (A(1) + Math<A>::tanh(A(K_SQRT_2_OVER_PI) * (v + A(0.044715) * v * v * v)));
    case kSilu:
      return v * sigmoid(v);
    case kSigmoid:
      return sigmoid(v);
    case kTanh:
      return Math<A>::tanh(v);
    case kClamp:
      return v < lo ? lo : (v > hi ? hi : v);
    default:
      return v;
  }
}

// act' at the saved value s: the output for relu, sigmoid, tanh and clamp, else the pre-activation.
template <typename A>
__device__ __forceinline__ A derivative(int act, A s, A slope, A lo, A hi) {
  switch (act) {
    case kRelu:
      return s > A(0) ? A(1) : A(0);
    case kLeaky:
      return s > A(0) ? A(1) : slope;
    case kGelu: {
      const A cdf = A(0.5) * (A(1) + Math<A>::erf(s * A(K_INV_SQRT2)));
      return cdf + s * A(K_INV_SQRT_2PI) * Math<A>::exp(A(-0.5) * s * s);
    }
    case kGeluTanh: {
      const A u = A(K_SQRT_2_OVER_PI) * (s + A(0.044715) * s * s * s);
      const A t = Math<A>::tanh(u);
      const A du = A(K_SQRT_2_OVER_PI) * (A(1) + A(3 * 0.044715) * s * s);
      return A(0.5) * (A(1) + t) + A(0.5) * s * (A(1) - t * t) * du;
    }
    case kSilu: {
      const A g = sigmoid(s);
      return g * (A(1) + s * (A(1) - g));
    }
    case kSigmoid:
      return s * (A(1) - s);
    case kTanh:
      return A(1) - s * s;
    case kClamp:
      return s > lo && s < hi ? A(1) : A(0);
    default:
      return A(1);
  }
}

template <typename T, typename A>
__device__ void apply(T* y, const T* bias, const T* z, T* pre, u64 total, u64 channels, u64 inner,
                      int act, double slope, double lo, double hi) {
  const u64 step = u64(gridDim.x) * blockDim.x;
  for (u64 i = u64(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    A v = load(y, i);
    if (bias != nullptr) v += load(bias, (i / inner) % channels);
    if (z != nullptr) v += load(z, i);
    if (pre != nullptr) put(pre, i, v);
    put(y, i, activate<A>(act, v, A(slope), A(lo), A(hi)));
  }
}

template <typename T, typename A>
__device__ void actGrad(const T* dy, const T* saved, T* dyPre, u64 total, int act, double slope,
                        double lo, double hi) {
  const u64 step = u64(gridDim.x) * blockDim.x;
  for (u64 i = u64(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    const A g = load(dy, i);
    put(dyPre, i, g * derivative<A>(act, load(saved, i), A(slope), A(lo), A(hi)));
  }
}

// dBias in two deterministic passes (a fixed split and a fixed order, so every run sums alike):
// pass 1, block (x, y) sums part y of its channels into partial[y * channels + c]; pass 2 adds each
// channel's parts in a fixed order. Element (o, c, s) lies at (o * channels + c) * inner + s. 256 threads.
//  - inner == 1 (NDHWC): rows of `channels` elements; block x takes channels 32x .. 32x + 31, its
//    threads 32 channels by 8 rows, so a warp reads 32 neighbouring elements of one row;
//  - inner > 1 (NCDHW): block x takes channel x, its threads the part's elements in order.
template <typename T, typename A>
__device__ void biasGradPartial(const T* dy, A* partial, u64 channels, u64 inner, u64 outer,
                                u64 parts) {
  __shared__ A sums[256];
  const u64 part = blockIdx.y;
  A sum = A(0);
  if (inner == 1) {
    const u64 c = u64(blockIdx.x) * 32 + (threadIdx.x & 31);
    const u64 per = (outer + parts - 1) / parts;
    const u64 r0 = part * per;
    const u64 r1 = r0 + per < outer ? r0 + per : outer;
    if (c < channels) {
      for (u64 r = r0 + (threadIdx.x >> 5); r < r1; r += 8) sum += load(dy, r * channels + c);
    }
    sums[threadIdx.x] = sum;
    __syncthreads();
    if (threadIdx.x < 32 && c < channels) {
      A s = sums[threadIdx.x];
      for (int k = 1; k < 8; ++k) s += sums[threadIdx.x + 32 * k];
      partial[part * channels + c] = s;
    }
    return;
  }
  const u64 c = blockIdx.x;
  const u64 count = outer * inner;
  const u64 per = (count + parts - 1) / parts;
  const u64 m0 = part * per;
  const u64 m1 = m0 + per < count ? m0 + per : count;
  u64 m = m0 + threadIdx.x;
  if (m < m1) {
    u64 o = m / inner;
    u64 s = m - o * inner;
    for (; m < m1; m += blockDim.x) {
      sum += load(dy, (o * channels + c) * inner + s);
      s += blockDim.x;
      if (s >= inner) {
        const u64 q = s / inner;
        o += q;
        s -= q * inner;
      }
    }
  }
  sums[threadIdx.x] = sum;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) sums[threadIdx.x] += sums[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[part * channels + c] = sums[0];
}

// Pass 2: block x takes channels 32x .. 32x + 31; thread (c, g) adds parts g, g + 8, ... in order,
// then the 8 sums of a channel are added in order (so every run adds alike).
template <typename T, typename A>
__device__ void biasGradFinish(const A* partial, T* dBias, u64 channels, u64 parts) {
  __shared__ A sums[256];
  const u64 c = u64(blockIdx.x) * 32 + (threadIdx.x & 31);
  A s = A(0);
  if (c < channels) {
    for (u64 p = threadIdx.x >> 5; p < parts; p += 8) s += partial[p * channels + c];
  }
  sums[threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x < 32 && c < channels) {
    A t = sums[threadIdx.x];
    for (int k = 1; k < 8; ++k) t += sums[threadIdx.x + 32 * k];
    put(dBias, c, t);
  }
}

}  // namespace baracuda_epilogue

#define EPILOGUE_KERNELS(SUFFIX, T, A)                                                           \
  extern "C" __global__ void __launch_bounds__(256) baracuda_epilogue_apply_##SUFFIX(           \
      T* y, const T* bias, const T* z, T* pre, unsigned long long total,                         \
      unsigned long long channels, unsigned long long inner, int act, double slope, double lo,   \
      double hi) {                                                                               \
    baracuda_epilogue::apply<T, A>(y, bias, z, pre, total, channels, inner, act, slope, lo, hi); \
  }                                                                                              \
  extern "C" __global__ void __launch_bounds__(256) baracuda_epilogue_act_grad_##SUFFIX(        \
      const T* dy, const T* saved, T* dyPre, unsigned long long total, int act, double slope,    \
      double lo, double hi) {                                                                    \
    baracuda_epilogue::actGrad<T, A>(dy, saved, dyPre, total, act, slope, lo, hi);               \
  }                                                                                              \
  extern "C" __global__ void __launch_bounds__(256) baracuda_epilogue_bias_grad_partial_##SUFFIX( \
      const T* dy, A* partial, unsigned long long channels, unsigned long long inner,              \
      unsigned long long outer, unsigned long long parts) {                                        \
    baracuda_epilogue::biasGradPartial<T, A>(dy, partial, channels, inner, outer, parts);          \
  }                                                                                                \
  extern "C" __global__ void __launch_bounds__(256) baracuda_epilogue_bias_grad_finish_##SUFFIX(  \
      const A* partial, T* dBias, unsigned long long channels, unsigned long long parts) {         \
    baracuda_epilogue::biasGradFinish<T, A>(partial, dBias, channels, parts);                      \
  }

EPILOGUE_KERNELS(f32, float, float)
EPILOGUE_KERNELS(f64, double, double)
EPILOGUE_KERNELS(f16, __half, float)
EPILOGUE_KERNELS(bf16, __nv_bfloat16, float)
