// The backend (graph) API: descriptors, attributes, finalize, execute.
#include "args.h"
#include "bindings.h"

namespace baracuda::cudnn {

// How the values of one cudnnBackendAttributeType_t cross the boundary.
enum class Marshal {
  kInt32Array,     // INT32 and every enum type: 4-byte elements
  kBigInt64Array,  // INT64
  kBigUint64Array, // VOID_PTR
  kFloat32Array,   // FLOAT
  kFloat64Array,   // DOUBLE
  kUint8Array,     // BOOLEAN (a C bool, one byte)
  kChar,           // CHAR: a string (set also takes a Uint8Array of bytes)
  kFraction,       // FRACTION: a BigInt64Array of (numerator, denominator) pairs
  kDescriptors,    // BACKEND_DESCRIPTOR: CudnnBackendDescriptor[]
  kHandles,        // HANDLE: CudnnHandle[]
  kUnknown,
};

Marshal MarshalFor(int type) {
  switch (type) {
    case k::CUDNN_TYPE_HANDLE:
      return Marshal::kHandles;
    case k::CUDNN_TYPE_BOOLEAN:
      return Marshal::kUint8Array;
    case k::CUDNN_TYPE_INT64:
      return Marshal::kBigInt64Array;
    case k::CUDNN_TYPE_FLOAT:
      return Marshal::kFloat32Array;
    case k::CUDNN_TYPE_DOUBLE:
      return Marshal::kFloat64Array;
    case k::CUDNN_TYPE_VOID_PTR:
      return Marshal::kBigUint64Array;
    case k::CUDNN_TYPE_BACKEND_DESCRIPTOR:
      return Marshal::kDescriptors;
    case k::CUDNN_TYPE_CHAR:
      return Marshal::kChar;
    case k::CUDNN_TYPE_FRACTION:
      return Marshal::kFraction;
    case k::CUDNN_TYPE_DATA_TYPE:
    case k::CUDNN_TYPE_CONVOLUTION_MODE:
    case k::CUDNN_TYPE_HEUR_MODE:
    case k::CUDNN_TYPE_KNOB_TYPE:
    case k::CUDNN_TYPE_NAN_PROPOGATION:
    case k::CUDNN_TYPE_NUMERICAL_NOTE:
    case k::CUDNN_TYPE_LAYOUT_TYPE:
    case k::CUDNN_TYPE_ATTRIB_NAME:
    case k::CUDNN_TYPE_POINTWISE_MODE:
    case k::CUDNN_TYPE_GENSTATS_MODE:
    case k::CUDNN_TYPE_BN_FINALIZE_STATS_MODE:
    case k::CUDNN_TYPE_REDUCTION_OPERATOR_TYPE:
    case k::CUDNN_TYPE_BEHAVIOR_NOTE:
    case k::CUDNN_TYPE_TENSOR_REORDERING_MODE:
    case k::CUDNN_TYPE_RESAMPLE_MODE:
    case k::CUDNN_TYPE_PADDING_MODE:
    case k::CUDNN_TYPE_INT32:
    case k::CUDNN_TYPE_SIGNAL_MODE:
    case k::CUDNN_TYPE_NORM_MODE:
    case k::CUDNN_TYPE_NORM_FWD_PHASE:
    case k::CUDNN_TYPE_RNG_DISTRIBUTION:
      return Marshal::kInt32Array;
    default:
      return Marshal::kUnknown;
  }
}

const char *ExpectedFor(Marshal marshal) {
  switch (marshal) {
    case Marshal::kInt32Array:
      return "an Int32Array";
    case Marshal::kBigInt64Array:
      return "a BigInt64Array";
    case Marshal::kBigUint64Array:
      return "a BigUint64Array";
    case Marshal::kFloat32Array:
      return "a Float32Array";
    case Marshal::kFloat64Array:
      return "a Float64Array";
    case Marshal::kUint8Array:
      return "a Uint8Array";
    case Marshal::kChar:
      return "a string or a Uint8Array";
    case Marshal::kFraction:
      return "a BigInt64Array of (numerator, denominator) pairs";
    case Marshal::kDescriptors:
      return "an array of CudnnBackendDescriptor";
    case Marshal::kHandles:
      return "an array of CudnnHandle";
    default:
      return "a known cudnnBackendAttributeType_t";
  }
}

napi_typedarray_type TypedArrayFor(Marshal marshal) {
  switch (marshal) {
    case Marshal::kInt32Array:
      return napi_int32_array;
    case Marshal::kBigInt64Array:
    case Marshal::kFraction:
      return napi_bigint64_array;
    case Marshal::kBigUint64Array:
      return napi_biguint64_array;
    case Marshal::kFloat32Array:
      return napi_float32_array;
    case Marshal::kFloat64Array:
      return napi_float64_array;
    default:
      return napi_uint8_array;
  }
}

size_t ElementSizeFor(Marshal marshal) {
  switch (marshal) {
    case Marshal::kInt32Array:
    case Marshal::kFloat32Array:
      return 4;
    case Marshal::kUint8Array:
    case Marshal::kChar:
      return 1;
    case Marshal::kFraction:
      return 16;
    default:
      return 8;
  }
}

int AttributeTypeArg(Napi::Env env, const Napi::Value &value, Marshal *marshal) {
  const int type = Int32Arg(env, value, "attributeType", "a cudnnBackendAttributeType_t");
  *marshal = MarshalFor(type);
  if (*marshal == Marshal::kUnknown) {
    ThrowRange(env, "attributeType", "a cudnnBackendAttributeType_t this addon can marshal",
               Describe(env, value));
  }
  return type;
}

Napi::Value BackendCreateDescriptor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnBackendCreateDescriptor);
  auto type = EnumArg<cudnnBackendDescriptorType_t>(env, info[0], "descriptorType",
                                                    "a cudnnBackendDescriptorType_t");
  cudnnBackendDescriptor_t descriptor = nullptr;
  const cudnnStatus_t status = fn(type, &descriptor);
  Napi::Object result = Result(env, status);
  Put(result, "descriptor", Wrap(env, kBackend, descriptor, status));
  return result;
}

Napi::Value BackendDestroyDescriptor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return Destroy<cudnnBackendDescriptor_t>(info, kBackend, "descriptor",
                                           CUDNN_FN(cudnnBackendDestroyDescriptor));
}

Napi::Value BackendFinalize(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnBackendFinalize);
  auto descriptor = BackendArg(env, info[0], "descriptor");
  return Status(env, fn(descriptor.get()));
}

// Hot path: kernels set the variant pack's pointers on every run. Typed arrays are passed to
// cuDNN in place; only descriptor and handle arrays are copied (to a small stack buffer).
Napi::Value BackendSetAttribute(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnBackendSetAttribute);
  const ObjectArg<cudnnBackendDescriptor_t> target = BackendArg(env, info[0], "descriptor");
  const int name = Int32Arg(env, info[1], "attributeName", "a cudnnBackendAttributeName_t");
  Marshal marshal = Marshal::kUnknown;
  const int type = AttributeTypeArg(env, info[2], &marshal);
  const Napi::Value values = info[3];
  const auto attributeName = static_cast<cudnnBackendAttributeName_t>(name);
  const auto attributeType = static_cast<cudnnBackendAttributeType_t>(type);

  if (marshal == Marshal::kDescriptors || marshal == Marshal::kHandles) {
    const Kind kind = marshal == Marshal::kDescriptors ? kBackend : kHandle;
    if (!values.IsArray()) ThrowType(env, "values", ExpectedFor(marshal), values);
    // Reading the elements may run JavaScript (getters, proxies): read them all first, then
    // unwrap them all (which runs none), then the target, at the call.
    const std::vector<Napi::Value> elements = ArrayElements(values.As<Napi::Array>());
    const size_t count = elements.size();
    void *small[16];
    std::vector<void *> large;
    void **pointers = small;
    if (count > 16) {
      large.resize(count);
      pointers = large.data();
    }
    std::vector<Napi::ObjectReference> refs;
    refs.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      const std::string argument = "values[" + std::to_string(i) + "]";
      pointers[i] = UnwrapObject(env, elements[i], kind, argument.c_str())->ptr();
      refs.push_back(Napi::Persistent(elements[i].As<Napi::Object>()));
    }
    NativeObject *native = target.native();
    const cudnnStatus_t status =
        fn(native->ptr(), attributeName, attributeType, static_cast<int64_t>(count), pointers);
    if (static_cast<int>(status) == k::CUDNN_STATUS_SUCCESS) native->Keep(name, std::move(refs));
    return Status(env, status);
  }

  if (marshal == Marshal::kChar && values.IsString()) {
    const std::string text = values.As<Napi::String>();
    return Status(env, fn(target.get(), attributeName, attributeType,
                          static_cast<int64_t>(text.size()), text.data()));
  }

  const napi_typedarray_type wanted = TypedArrayFor(marshal);
  napi_typedarray_type actual = napi_int8_array;
  size_t length = 0;
  void *data = nullptr;
  if (!values.IsTypedArray() ||
      napi_get_typedarray_info(env, values, &actual, &length, &data, nullptr, nullptr) != napi_ok ||
      actual != wanted) {
    ThrowType(env, "values", ExpectedFor(marshal), values);
  }
  int64_t count = static_cast<int64_t>(length);
  if (marshal == Marshal::kFraction) {
    if (length % 2 != 0) {
      ThrowRange(env, "values", ExpectedFor(marshal),
                 "a BigInt64Array of odd length " + std::to_string(length));
    }
    count /= 2;
  }
  return Status(env, fn(target.get(), attributeName, attributeType, count, data));
}

Napi::Value BackendGetAttribute(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnBackendGetAttribute);
  auto descriptor = BackendArg(env, info[0], "descriptor");
  const int name = Int32Arg(env, info[1], "attributeName", "a cudnnBackendAttributeName_t");
  Marshal marshal = Marshal::kUnknown;
  const int type = AttributeTypeArg(env, info[2], &marshal);
  const size_t requested = SizeArg(env, info[3], "requestedElementCount");
  if (requested > (size_t{1} << 24)) {
    ThrowRange(env, "requestedElementCount", "at most 16777216", Describe(env, info[3]));
  }
  const auto attributeName = static_cast<cudnnBackendAttributeName_t>(name);
  const auto attributeType = static_cast<cudnnBackendAttributeType_t>(type);
  int64_t elementCount = 0;

  if (marshal == Marshal::kDescriptors) {
    // The C API fills descriptors the caller created beforehand, one per requested element.
    const Napi::Value out = info[4];
    if (!out.IsArray()) {
      ThrowType(env, "outDescriptors", "an array of CudnnBackendDescriptor", out);
    }
    Napi::Array array = out.As<Napi::Array>();
    if (array.Length() != requested) {
      ThrowRange(env, "outDescriptors",
                 "an array of " + std::to_string(requested) +
                     " CudnnBackendDescriptor (requestedElementCount)",
                 "an array of length " + std::to_string(array.Length()));
    }
    // As in BackendSetAttribute: every element read (JavaScript may run), then every one
    // unwrapped, then the descriptor, at the call.
    const std::vector<Napi::Value> elements = ArrayElements(array);
    std::vector<void *> pointers(elements.size());
    for (size_t i = 0; i < elements.size(); ++i) {
      const std::string argument = "outDescriptors[" + std::to_string(i) + "]";
      pointers[i] = UnwrapObject(env, elements[i], kBackend, argument.c_str())->ptr();
    }
    const int64_t given = static_cast<int64_t>(pointers.size());
    const cudnnStatus_t status =
        fn(descriptor.get(), attributeName, attributeType, given, &elementCount,
           given ? pointers.data() : nullptr);
    const size_t shown =
        static_cast<size_t>(std::max<int64_t>(0, std::min<int64_t>(elementCount, given)));
    Napi::Array values = Napi::Array::New(env, shown);
    for (uint32_t i = 0; i < shown; ++i) PutIndex(values, i, elements[i]);
    Napi::Object result = Result(env, status);
    Put(result, "elementCount", Napi::Number::New(env, static_cast<double>(elementCount)));
    Put(result, "values", values);
    return result;
  }

  const size_t elementSize = ElementSizeFor(marshal);
  Napi::ArrayBuffer buffer = Napi::ArrayBuffer::New(env, std::max<size_t>(1, requested * elementSize));
  std::memset(buffer.Data(), 0, buffer.ByteLength());
  const cudnnStatus_t status =
      fn(descriptor.get(), attributeName, attributeType, static_cast<int64_t>(requested), &elementCount,
         requested ? buffer.Data() : nullptr);
  const size_t shown =
      static_cast<size_t>(std::max<int64_t>(0, std::min<int64_t>(elementCount, requested)));
  Napi::Object result = Result(env, status);
  Put(result, "elementCount", Napi::Number::New(env, static_cast<double>(elementCount)));
  if (marshal == Marshal::kChar) {
    const char *text = static_cast<const char *>(buffer.Data());
    Put(result, "values", Napi::String::New(env, text, strnlen(text, shown)));
    return result;
  }
  // HANDLE comes back as raw addresses (a BigUint64Array): the handle belongs to whoever
  // created it, so it is not wrapped again.
  napi_typedarray_type arrayType = TypedArrayFor(marshal);
  size_t arrayLength = shown;
  if (marshal == Marshal::kHandles) arrayType = napi_biguint64_array;
  if (marshal == Marshal::kFraction) arrayLength = shown * 2;
  napi_value typed = nullptr;
  napi_create_typedarray(env, arrayType, arrayLength, buffer, 0, &typed);
  Put(result, "values", Napi::Value(env, typed));
  return result;
}

Napi::Value BackendExecute(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnBackendExecute);
  auto handle = HandleArg(env, info[0], "handle");
  auto plan = BackendArg(env, info[1], "executionPlan");
  auto variantPack = BackendArg(env, info[2], "variantPack");
  return Status(env, fn(handle.get(), plan.get(), variantPack.get()));
}

}  // namespace baracuda::cudnn
