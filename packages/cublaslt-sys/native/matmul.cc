// cublasLtMatmulAlgoGetHeuristic and cublasLtMatmul.
#include <cstring>
#include <vector>

#include "bindings.h"
#include "support.h"

namespace baracuda::cublaslt {
namespace {

constexpr int kMaxRequested = 1024;

// An algorithm from the heuristic (a Uint8Array of 64 bytes), or null for "let cuBLASLt choose".
bool AlgoArg(Napi::Env env, const Napi::Value &value, cublasLtMatmulAlgo_t &algo) {
  constexpr const char *what = "null or a Uint8Array of 64 bytes (a cublasLtMatmulAlgo_t)";
  if (value.IsNull()) return false;
  if (!value.IsTypedArray() || value.As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array) {
    ThrowType(env, "algo", what, value);
  }
  Napi::Uint8Array bytes = value.As<Napi::Uint8Array>();
  if (bytes.ElementLength() != BARACUDA_CUBLASLT_ALGO_BYTES || bytes.Data() == nullptr) {
    ThrowType(env, "algo", what, value);
  }
  std::memcpy(algo.data, bytes.Data(), sizeof algo.data);
  return true;
}

// alpha or beta: a Float32Array or Float64Array (of the scale type) whose first element is the
// scalar, copied and padded with zeros to 16 bytes. Any other view would be read as a float of
// the wrong width or type.
std::vector<unsigned char> ScalarArg(Napi::Env env, const Napi::Value &value, const char *argument) {
  constexpr const char *what = "a Float32Array or Float64Array holding the scalar";
  if (!value.IsTypedArray()) ThrowType(env, argument, what, value);
  const napi_typedarray_type type = value.As<Napi::TypedArray>().TypedArrayType();
  if (type != napi_float32_array && type != napi_float64_array) {
    ThrowType(env, argument, what, value);
  }
  auto bytes = BytesArg(env, value, argument);
  if (bytes.size() < 16) bytes.resize(16, 0);
  return bytes;
}

}  // namespace

Napi::Value MatmulAlgoGetHeuristic(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  ObjectArg handle(env, info[0], "lightHandle", Kind::Handle);
  ObjectArg op(env, info[1], "operationDesc", Kind::MatmulDesc);
  ObjectArg a(env, info[2], "Adesc", Kind::MatrixLayout);
  ObjectArg b(env, info[3], "Bdesc", Kind::MatrixLayout);
  ObjectArg c(env, info[4], "Cdesc", Kind::MatrixLayout);
  ObjectArg d(env, info[5], "Ddesc", Kind::MatrixLayout);
  ObjectArg pref(env, info[6], "preference", Kind::MatmulPreference);
  const int requested = Int32Arg(env, info[7], "requestedAlgoCount", "an int32 from 1 to 1024");
  if (requested < 1 || requested > kMaxRequested) {
    ThrowType(env, "requestedAlgoCount", "an int32 from 1 to 1024", info[7]);
  }
  auto fn = LT_FN(cublasLtMatmulAlgoGetHeuristic);
  std::vector<cublasLtMatmulHeuristicResult_t> results(static_cast<size_t>(requested));
  int returned = 0;
  const cublasStatus_t status =
      fn(handle.get<cublasLtHandle_t>(), op.get<cublasLtMatmulDesc_t>(),
         a.get<cublasLtMatrixLayout_t>(), b.get<cublasLtMatrixLayout_t>(),
         c.get<cublasLtMatrixLayout_t>(), d.get<cublasLtMatrixLayout_t>(),
         pref.get<cublasLtMatmulPreference_t>(), requested, results.data(), &returned);
  if (status != 0 || returned < 0) returned = 0;
  if (returned > requested) returned = requested;
  Napi::Object result = Result(env, status);
  Napi::Array list = Napi::Array::New(env, static_cast<size_t>(returned));
  for (int i = 0; i < returned; ++i) {
    const auto &found = results[static_cast<size_t>(i)];
    Napi::Object entry = Napi::Object::New(env);
    Napi::Uint8Array algo = Napi::Uint8Array::New(env, BARACUDA_CUBLASLT_ALGO_BYTES);
    std::memcpy(algo.Data(), found.algo.data, BARACUDA_CUBLASLT_ALGO_BYTES);
    PutValue(entry, "algo", algo);
    Put(entry, "workspaceSize", static_cast<double>(found.workspaceSize));
    Put(entry, "state", static_cast<double>(found.state));
    Put(entry, "wavesCount", static_cast<double>(found.wavesCount));
    list.DefineProperty(Napi::PropertyDescriptor::Value(
        Napi::String::New(env, std::to_string(i)), entry, napi_default_jsproperty));
  }
  PutValue(result, "heuristicResultsArray", list);
  Put(result, "returnAlgoCount", returned);
  return result;
}

// cublasLtMatmul(lightHandle, computeDesc, alpha, A, Adesc, B, Bdesc, beta, C, Cdesc, D, Ddesc,
//                algo, workspace, workspaceSizeInBytes, stream): alpha and beta are host scalars
// of the descriptor's scale type (a Float32Array or Float64Array, copied), A..D, the workspace
// and the stream are bigint addresses.
Napi::Value Matmul(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  ObjectArg handle(env, info[0], "lightHandle", Kind::Handle);
  ObjectArg desc(env, info[1], "computeDesc", Kind::MatmulDesc);
  // Padded with zeros to 16 bytes (ScalarArg): a Float32Array given for a 64F scale type reads
  // zeros, never past the copy.
  const auto alpha = ScalarArg(env, info[2], "alpha");
  void *A = PointerArg(env, info[3], "A");
  ObjectArg aDesc(env, info[4], "Adesc", Kind::MatrixLayout);
  void *B = PointerArg(env, info[5], "B");
  ObjectArg bDesc(env, info[6], "Bdesc", Kind::MatrixLayout);
  const auto beta = ScalarArg(env, info[7], "beta");
  void *C = PointerArg(env, info[8], "C");
  ObjectArg cDesc(env, info[9], "Cdesc", Kind::MatrixLayout);
  void *D = PointerArg(env, info[10], "D");
  ObjectArg dDesc(env, info[11], "Ddesc", Kind::MatrixLayout);
  cublasLtMatmulAlgo_t algo{};
  const bool hasAlgo = AlgoArg(env, info[12], algo);
  void *workspace = PointerArg(env, info[13], "workspace");
  const auto workspaceBytes =
      static_cast<size_t>(SafeIntArg(env, info[14], "workspaceSizeInBytes", true));
  auto *stream = static_cast<cudaStream_t>(PointerArg(env, info[15], "stream"));
  auto fn = LT_FN(cublasLtMatmul);
  const cublasStatus_t status =
      fn(handle.get<cublasLtHandle_t>(), desc.get<cublasLtMatmulDesc_t>(), alpha.data(), A,
         aDesc.get<cublasLtMatrixLayout_t>(), B, bDesc.get<cublasLtMatrixLayout_t>(), beta.data(),
         C, cDesc.get<cublasLtMatrixLayout_t>(), D, dDesc.get<cublasLtMatrixLayout_t>(),
         hasAlgo ? &algo : nullptr, workspace, workspaceBytes, stream);
  return Status(env, status);
}

}  // namespace baracuda::cublaslt
