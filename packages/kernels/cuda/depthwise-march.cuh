// NDHWC, stride 1: `clmarch`, the channels-last kernel that marches in depth (included by
// depthwise.cu inside its namespace; Pack, toAcc and store are that file's).
//
// A thread owns V channels of one output column (n, oh, ow) over a chunk of output depths
// [chunk * len, + len) and walks the input slices that chunk reads, in depth order. Each slice's
// kH x kW taps are loaded once (V channels each, one vector load where aligned) and added to every
// output depth the slice feeds, held in registers: acc[j] is output depth od + j, where od is the
// depth the current slice completes, j = (kD-1-kd) * dD, so the filter's reach in depth
// (kD-1)*dD + 1 is at most SPAN (3). Each input element is thus loaded once per output column and
// chunk, where `clvec` loads it kD times. With `flip` the filter runs reversed: backward-data of a
// stride-1 convolution with padding d*(k-1) - p. `wt` is the filter staged in shared memory as
// [tap][C] in the accumulator type.
// grid-stride over batch * chunks * outH * outW * (C / V) threads; consecutive threads take
// consecutive channel groups of one column, so every load is coalesced across the channels.
constexpr int kMarchSpan = 3;

template <typename T, typename Acc, int V>
__device__ __forceinline__ void clmarch(const T* __restrict__ in, const Acc* __restrict__ wt,
                                        T* __restrict__ out, i64 batch, int channels, int inD,
                                        int inH, int inW, int outD, int outH, int outW, int kD,
                                        int kH, int kW, int pD, int pH, int pW, int dD, int dH,
                                        int dW, int flip, int chunks, int len, Acc alpha,
                                        Acc beta) {
  const int vecs = channels / V;
  const int nTaps = kD * kH * kW;
  const int reachD = (kD - 1) * dD;
  const i64 columns = (i64)outH * outW;
  const i64 total = batch * chunks * columns * vecs;
  const bool aligned = (reinterpret_cast<unsigned long long>(in) % (sizeof(T) * V)) == 0;
  for (i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x; e < total;
       e += (i64)gridDim.x * blockDim.x) {
    i64 rest = e / vecs;
    const int c0 = (int)(e - rest * vecs) * V;
    const int column = (int)(rest % columns);
    rest /= columns;
    const int chunk = (int)(rest % chunks);
    const i64 n = rest / chunks;
    const int oh = column / outW, ow = column - (column / outW) * outW;
    const int odLo = chunk * len, odHi = min(outD, odLo + len);
    const T* src = in + n * ((i64)inD * inH * inW) * channels + c0;
    T* dst = out + n * ((i64)outD * outH * outW) * channels + c0;
    Acc acc[kMarchSpan][V];
#pragma unroll
    for (int j = 0; j < kMarchSpan; j++) {
#pragma unroll
      for (int v = 0; v < V; v++) acc[j][v] = Acc(0);
    }
    for (int id = odLo - pD; id <= odHi - 1 - pD + reachD; id++) {
      if (id >= 0 && id < inD) {
        for (int kh = 0; kh < kH; kh++) {
          const int ih = oh - pH + kh * dH;
          if (ih < 0 || ih >= inH) continue;
          for (int kw = 0; kw < kW; kw++) {
            const int iw = ow - pW + kw * dW;
            if (iw < 0 || iw >= inW) continue;
            const T* at = src + (((i64)id * inH + ih) * inW + iw) * channels;
            Acc val[V];
            if (aligned) {
              const Pack<T, V> p = *reinterpret_cast<const Pack<T, V>*>(at);
#pragma unroll
              for (int v = 0; v < V; v++) val[v] = toAcc(p.v[v]);
            } else {
#pragma unroll
              for (int v = 0; v < V; v++) val[v] = toAcc(at[v]);
            }
#pragma unroll
            for (int j = 0; j < kMarchSpan; j++) {
              // Filter depth kd feeds acc[j], j = (kD-1-kd) * dD.
              if (j > reachD || j % dD != 0) continue;
              const int kd = kD - 1 - j / dD;
              const int t = (kd * kH + kh) * kW + kw;
              const Acc* tap = wt + (flip ? nTaps - 1 - t : t) * channels + c0;
#pragma unroll
              for (int v = 0; v < V; v++) acc[j][v] += val[v] * tap[v];
            }
          }
        }
      }
      const int od = id + pD - reachD;  // every input slice of output depth od is summed
      if (od >= odLo) {
        const i64 base = (((i64)od * outH + oh) * outW + ow) * channels;
#pragma unroll
        for (int v = 0; v < V; v++) store<T, Acc>(dst, base + v, acc[0][v], alpha, beta);
      }
#pragma unroll
      for (int j = 0; j + 1 < kMarchSpan; j++) {
#pragma unroll
        for (int v = 0; v < V; v++) acc[j][v] = acc[j + 1][v];
      }
#pragma unroll
      for (int v = 0; v < V; v++) acc[kMarchSpan - 1][v] = Acc(0);
    }
  }
}
