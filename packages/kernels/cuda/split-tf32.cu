// The 3xTF32 split of an f32 tensor (see src/split-tf32.ts and src/exec/split-tf32.ts):
//     hi = tf32(a)        round to nearest (ties away from zero) to 10 explicit mantissa bits
//     lo = tf32(a - hi)   the remainder, rounded the same way
// Both are exactly representable in TF32, so a tensor core that truncates its f32 inputs to TF32
// and one that rounds them compute the same products; |a - hi - lo| <= 2^-22 |a|.
//
// Rounding: add 0x1000 (half a TF32 ulp) to the bits and clear the low 13. Specials:
//   - Inf: hi = a, lo = 0;
//   - NaN: hi = a quiet NaN of a's sign (TF32-representable; clearing a NaN's low bits could make
//     it an Inf), lo = 0;
//   - a finite value that would round up past the largest TF32 value (within half a TF32 ulp of
//     FLT_MAX): hi = a truncated instead, so hi stays finite and hi + lo still reconstructs a.
// a - hi is exact in f32 (hi is a's nearest or truncated TF32 neighbour), so only lo rounds.
//
// Two kernels, both grid-stride over a 64-bit element count: baracuda_split_tf32 (one element a
// step) and baracuda_split_tf32_v4 (float4 loads and stores; all three pointers 16-byte aligned,
// the count a multiple of 4). Parameters: src, hi, lo (pointers), count (elements), 8 bytes each.
//
// Regenerate src/split-tf32-ptx.ts with `node scripts/gen-ptx.mjs` (needs nvcc); a test checks
// it is current whenever nvcc is present.

namespace baracuda_split {

__device__ __forceinline__ unsigned roundTf32(unsigned bits) {
  const unsigned exponent = bits & 0x7f800000u;
  if (exponent == 0x7f800000u) {
    // Inf stays; NaN becomes a quiet NaN of its sign.
    return (bits & 0x007fffffu) == 0u ? bits : ((bits & 0x80000000u) | 0x7fc00000u);
  }
  const unsigned rounded = (bits + 0x1000u) & 0xffffe000u;
  // Rounding up carried into an Inf: truncate instead (the largest TF32 value).
  if ((rounded & 0x7f800000u) == 0x7f800000u) return bits & 0xffffe000u;
  return rounded;
}

__device__ __forceinline__ void split(float a, float& hi, float& lo) {
  const unsigned bits = __float_as_uint(a);
  const unsigned h = roundTf32(bits);
  hi = __uint_as_float(h);
  if ((bits & 0x7f800000u) == 0x7f800000u) {
    lo = 0.0f;
    return;
  }
  // Exact: hi is a's nearest (or truncated) TF32 neighbour.
  lo = __uint_as_float(roundTf32(__float_as_uint(__fsub_rn(a, hi))));
}

}  // namespace baracuda_split

extern "C" __global__ void __launch_bounds__(256)
    baracuda_split_tf32(const float* __restrict__ src, float* __restrict__ hi,
                        float* __restrict__ lo, unsigned long long count) {
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    float h, l;
    baracuda_split::split(src[i], h, l);
    hi[i] = h;
    lo[i] = l;
  }
}

extern "C" __global__ void __launch_bounds__(256)
    baracuda_split_tf32_v4(const float4* __restrict__ src, float4* __restrict__ hi,
                           float4* __restrict__ lo, unsigned long long count) {
  const unsigned long long vectors = count / 4;
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
       i < vectors; i += stride) {
    const float4 a = src[i];
    float4 h, l;
    baracuda_split::split(a.x, h.x, l.x);
    baracuda_split::split(a.y, h.y, l.y);
    baracuda_split::split(a.z, h.z, l.z);
    baracuda_split::split(a.w, h.w, l.w);
    hi[i] = h;
    lo[i] = l;
  }
}
