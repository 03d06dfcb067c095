// @baracuda/cudnn-sys: raw cuDNN 9 bindings, one JS function per C function, same name.
//
// Conventions (docs/ARCHITECTURE.md):
// - A call with no outputs returns the cudnnStatus_t number; a call with outputs returns
//   { status, ...outputs } named after the C out-parameters. A cuDNN status never throws.
// - Handles and descriptors are type-tagged wrapped objects. A foreign object, a destroyed one or
//   the wrong kind is rejected with a TypeError before anything is dereferenced.
// - Wrong argument types throw TypeError, wrong sizes RangeError; nothing is coerced.
// - libcudnn.so.9 is loaded at the first call that needs it (loader.cc), never at require time.
#include <napi.h>

#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "cudnn_decls.h"
#include "loader.h"

namespace baracuda::cudnn {
namespace {

// ---------------------------------------------------------------------------------------------
// Wrapped native objects

enum Kind : int {
  kHandle = 0,
  kTensor,
  kFilter,
  kConvolution,
  kActivation,
  kBackend,
  kKindCount
};

constexpr const char *kKindNames[kKindCount] = {
    "CudnnHandle",          "CudnnTensorDescriptor",     "CudnnFilterDescriptor",
    "CudnnConvolutionDescriptor", "CudnnActivationDescriptor", "CudnnBackendDescriptor"};

constexpr const char *kKindCreators[kKindCount] = {
    "cudnnCreate()",
    "cudnnCreateTensorDescriptor()",
    "cudnnCreateFilterDescriptor()",
    "cudnnCreateConvolutionDescriptor()",
    "cudnnCreateActivationDescriptor()",
    "cudnnBackendCreateDescriptor()"};

// One random tag per kind: napi_check_object_type_tag tells our objects from any other object,
// and one kind from another, without dereferencing anything.
constexpr napi_type_tag kTags[kKindCount] = {
    {0x7a1c3e0b9d2f4a61ULL, 0x8b5e2d4c6f1a3b70ULL}, {0x1f9e8d7c6b5a4930ULL, 0x2e8d7c6b5a493821ULL},
    {0x3d7c6b5a49382716ULL, 0x4c6b5a4938271605ULL}, {0x5b5a493827160594ULL, 0x6a49382716059483ULL},
    {0x7938271605948372ULL, 0x8827160594837261ULL}, {0x9716059483726150ULL, 0xa605948372615049ULL}};

// Passed to the class constructors from C++ only; JS cannot forge it.
int gConstructToken = 0;

class NativeObject : public Napi::ObjectWrap<NativeObject> {
 public:
  explicit NativeObject(const Napi::CallbackInfo &info) : Napi::ObjectWrap<NativeObject>(info) {
    kind_ = static_cast<Kind>(reinterpret_cast<intptr_t>(info.Data()));
    Napi::Env env = info.Env();
    if (info.Length() != 2 || !info[0].IsExternal() ||
        info[0].As<Napi::External<int>>().Data() != &gConstructToken || !info[1].IsExternal()) {
      throw Napi::TypeError::New(env, std::string(kKindNames[kind_]) +
                                          " cannot be constructed from JavaScript; use " +
                                          kKindCreators[kind_]);
    }
    ptr_ = info[1].As<Napi::External<void>>().Data();
    napi_status status = napi_type_tag_object(env, info.This(), &kTags[kind_]);
    if (status != napi_ok) throw Napi::Error::New(env, "napi_type_tag_object failed");
  }

  // Safety net for objects JS never destroyed. Runs from the GC or at environment teardown: it
  // touches no JS, ignores the status and never throws.
  ~NativeObject() override {
    if (destroyed_ || ptr_ == nullptr) return;
    destroyed_ = true;
    const LoadState &state = EnsureLoaded();
    if (!state.available) return;
    const Symbols &s = state.sym;
    switch (kind_) {
      case kHandle:
        if (s.cudnnDestroy) s.cudnnDestroy(static_cast<cudnnHandle_t>(ptr_));
        break;
      case kTensor:
        if (s.cudnnDestroyTensorDescriptor)
          s.cudnnDestroyTensorDescriptor(static_cast<cudnnTensorDescriptor_t>(ptr_));
        break;
      case kFilter:
        if (s.cudnnDestroyFilterDescriptor)
          s.cudnnDestroyFilterDescriptor(static_cast<cudnnFilterDescriptor_t>(ptr_));
        break;
      case kConvolution:
        if (s.cudnnDestroyConvolutionDescriptor)
          s.cudnnDestroyConvolutionDescriptor(static_cast<cudnnConvolutionDescriptor_t>(ptr_));
        break;
      case kActivation:
        if (s.cudnnDestroyActivationDescriptor)
          s.cudnnDestroyActivationDescriptor(static_cast<cudnnActivationDescriptor_t>(ptr_));
        break;
      case kBackend:
        if (s.cudnnBackendDestroyDescriptor) s.cudnnBackendDestroyDescriptor(ptr_);
        break;
      default:
        break;
    }
  }

  Kind kind() const { return kind_; }
  void *ptr() const { return ptr_; }
  bool destroyed() const { return destroyed_; }
  void MarkDestroyed() {
    destroyed_ = true;
    kept_.clear();
  }

  // Objects this one refers to through an attribute (a backend descriptor's operation graph, an
  // execution plan's handle). Holding them keeps the GC from finalizing (and so destroying) a
  // child while its parent can still reach it. One list per attribute name, replaced on each set.
  void Keep(int attributeName, std::vector<Napi::ObjectReference> refs) {
    for (auto &entry : kept_) {
      if (entry.first == attributeName) {
        entry.second = std::move(refs);
        return;
      }
    }
    kept_.emplace_back(attributeName, std::move(refs));
  }

 private:
  Kind kind_ = kHandle;
  void *ptr_ = nullptr;
  bool destroyed_ = false;
  std::vector<std::pair<int, std::vector<Napi::ObjectReference>>> kept_;
};

struct AddonData {
  Napi::FunctionReference constructors[kKindCount];
};

// Result objects are filled with data properties defined in place (napi_define_properties), never
// assigned: an assignment runs a setter that user code may have put on Object.prototype or
// Array.prototype, which would run JavaScript in the middle of a binding (and could swallow the
// value). Defining runs no JavaScript.
template <typename V>
void Put(const Napi::Object &object, const char *key, const V &value) {
  object.DefineProperty(Napi::PropertyDescriptor::Value(
      key, Napi::Value::From(object.Env(), value), napi_default_jsproperty));
}
template <typename V>
void PutIndex(const Napi::Object &object, uint32_t index, const V &value) {
  Napi::Env env = object.Env();
  object.DefineProperty(Napi::PropertyDescriptor::Value(
      Napi::String::New(env, std::to_string(index)), Napi::Value::From(env, value),
      napi_default_jsproperty));
}

// ---------------------------------------------------------------------------------------------
// Describing values for error messages, in the form of @baracuda/types' describeValue.

// A string as JSON.stringify writes it, without calling JSON (a global user code may replace).
std::string QuoteJson(Napi::Env env, const std::u16string &text) {
  std::u16string quoted = u"\"";
  static const char16_t *hex = u"0123456789abcdef";
  for (size_t i = 0; i < text.size(); ++i) {
    const char16_t c = text[i];
    const bool high = c >= 0xD800 && c <= 0xDBFF;
    const bool low = c >= 0xDC00 && c <= 0xDFFF;
    const bool paired = high && i + 1 < text.size() && text[i + 1] >= 0xDC00 && text[i + 1] <= 0xDFFF;
    if (c == u'"' || c == u'\\') {
      quoted += u'\\';
      quoted += c;
    } else if (c == u'\b') {
      quoted += u"\\b";
    } else if (c == u'\f') {
      quoted += u"\\f";
    } else if (c == u'\n') {
      quoted += u"\\n";
    } else if (c == u'\r') {
      quoted += u"\\r";
    } else if (c == u'\t') {
      quoted += u"\\t";
    } else if (c < 0x20 || (low && !(i > 0 && text[i - 1] >= 0xD800 && text[i - 1] <= 0xDBFF)) ||
               (high && !paired)) {
      quoted += u"\\u";
      for (int shift = 12; shift >= 0; shift -= 4) quoted += hex[(c >> shift) & 0xF];
    } else {
      quoted += c;
    }
  }
  quoted += u'"';
  return Napi::String::New(env, quoted).Utf8Value();
}

std::string Describe(Napi::Env env, const Napi::Value &value) {
  switch (value.Type()) {
    case napi_null:
      return "null";
    case napi_undefined:
      return "undefined";
    case napi_string: {
      std::u16string text = value.As<Napi::String>().Utf16Value();
      if (text.size() > 40) text = text.substr(0, 40) + u"\u2026";
      return QuoteJson(env, text) + " of type string";
    }
    case napi_bigint:
      return value.ToString().Utf8Value() + "n of type bigint";
    case napi_number:
      return value.ToString().Utf8Value() + " of type number";
    case napi_boolean:
      return value.ToString().Utf8Value() + " of type boolean";
    case napi_function:
      return "a function";
    case napi_symbol: {
      // String(symbol) reads a global that user code may have replaced: any surprise there
      // falls back to a plain description rather than replacing the TypeError being built.
      try {
        Napi::Value text = env.Global().Get("String").As<Napi::Function>().Call({value});
        if (text.IsString()) return text.As<Napi::String>().Utf8Value() + " of type symbol";
      } catch (const Napi::Error &) {
      }
      return "a value of type symbol";
    }
    default: {
      if (value.IsArray()) {
        return "an array of length " + std::to_string(value.As<Napi::Array>().Length());
      }
      Napi::Object object = value.As<Napi::Object>();
      for (int kind = 0; kind < kKindCount; ++kind) {
        bool tagged = false;
        napi_check_object_type_tag(env, object, &kTags[kind], &tagged);
        if (tagged) {
          NativeObject *native = NativeObject::Unwrap(object);
          return std::string(native && native->destroyed() ? "a destroyed " : "an instance of ") +
                 kKindNames[kind];
        }
      }
      // Reading `constructor` may run a getter or a Proxy trap: what it throws is dropped, so
      // the caller's TypeError is the error that comes out.
      try {
        Napi::Value constructor = object.Get("constructor");
        if (constructor.IsFunction()) {
          Napi::Value name = constructor.As<Napi::Object>().Get("name");
          if (name.IsString()) {
            std::string text = name.As<Napi::String>();
            if (!text.empty() && text != "Object") return "an instance of " + text;
          }
        }
      } catch (const Napi::Error &) {
      }
      return "an object";
    }
  }
}

[[noreturn]] void ThrowType(Napi::Env env, const std::string &argument,
                            const std::string &expected, const Napi::Value &value) {
  throw Napi::TypeError::New(
      env, "Expected " + expected + " for " + argument + " but received " + Describe(env, value));
}

[[noreturn]] void ThrowRange(Napi::Env env, const std::string &argument,
                             const std::string &expected, const std::string &received) {
  throw Napi::RangeError::New(env,
                              "Expected " + expected + " for " + argument + " but received " +
                                  received);
}

// ---------------------------------------------------------------------------------------------
// Library access

const Symbols &Lib(Napi::Env env) {
  const LoadState &state = EnsureLoaded();
  if (!state.available) {
    throw Napi::Error::New(env, "cuDNN is not available (" + state.reason +
                                    "); call probe() for every path that was tried");
  }
  return state.sym;
}

template <typename F>
F Need(Napi::Env env, F fn, const char *name) {
  if (fn == nullptr) {
    const LoadState &state = EnsureLoaded();
    throw Napi::Error::New(env, std::string(name) + " is not exported by " + state.libraryPath +
                                    " (cuDNN " + std::to_string(state.version) + ")");
  }
  return fn;
}

#define CUDNN_FN(name) Need(env, Lib(env).name, #name)

// ---------------------------------------------------------------------------------------------
// Argument conversion

NativeObject *UnwrapObject(Napi::Env env, const Napi::Value &value, Kind kind,
                           const char *argument) {
  bool tagged = false;
  if (value.IsObject()) {
    napi_check_object_type_tag(env, value, &kTags[kind], &tagged);
  }
  if (!tagged) ThrowType(env, argument, std::string("a live ") + kKindNames[kind], value);
  NativeObject *native = NativeObject::Unwrap(value.As<Napi::Object>());
  if (native == nullptr || native->destroyed()) {
    ThrowType(env, argument, std::string("a live ") + kKindNames[kind], value);
  }
  return native;
}

// A wrapped-object argument. Constructing it checks the value (so errors come in argument order);
// get() checks again and returns the C pointer. The rule for every binding (docs/ARCHITECTURE.md,
// native addon conventions): convert every argument first, then call get() inside the C call's
// argument list. Converting an array runs JavaScript (an index getter, a Proxy trap), which may
// destroy an object unwrapped earlier; with get() at the call, such an object is refused with a
// TypeError instead of handing cuDNN freed memory. There is no implicit conversion to the C type:
// a binding cannot pass an object without the late check.
template <typename T>
class ObjectArg {
 public:
  ObjectArg(Napi::Env env, const Napi::Value &value, Kind kind, std::string argument)
      : env_(env), value_(value), kind_(kind), argument_(std::move(argument)) {
    UnwrapObject(env_, value_, kind_, argument_.c_str());
  }
  /** The live object's C pointer; call it only inside the C call's argument list. */
  T get() const { return static_cast<T>(native()->ptr()); }
  /** The live wrapper, checked now. */
  NativeObject *native() const { return UnwrapObject(env_, value_, kind_, argument_.c_str()); }
  const Napi::Value &value() const { return value_; }

 private:
  Napi::Env env_;
  Napi::Value value_;
  Kind kind_;
  std::string argument_;
};

ObjectArg<cudnnHandle_t> HandleArg(Napi::Env env, const Napi::Value &v, const char *name) {
  return {env, v, kHandle, name};
}
ObjectArg<cudnnTensorDescriptor_t> TensorArg(Napi::Env env, const Napi::Value &v,
                                             const char *name) {
  return {env, v, kTensor, name};
}
ObjectArg<cudnnFilterDescriptor_t> FilterArg(Napi::Env env, const Napi::Value &v,
                                             const char *name) {
  return {env, v, kFilter, name};
}
ObjectArg<cudnnConvolutionDescriptor_t> ConvArg(Napi::Env env, const Napi::Value &v,
                                                const char *name) {
  return {env, v, kConvolution, name};
}
ObjectArg<cudnnActivationDescriptor_t> ActivationArg(Napi::Env env, const Napi::Value &v,
                                                     const char *name) {
  return {env, v, kActivation, name};
}
ObjectArg<cudnnBackendDescriptor_t> BackendArg(Napi::Env env, const Napi::Value &v,
                                               const char *name) {
  return {env, v, kBackend, name};
}

// An int32: a number that is an integer in [-2^31, 2^31). `what` names the C type.
int Int32Arg(Napi::Env env, const Napi::Value &value, const char *argument,
             const char *what = "an int32") {
  if (!value.IsNumber()) ThrowType(env, argument, what, value);
  const double number = value.As<Napi::Number>().DoubleValue();
  if (!std::isfinite(number) || std::trunc(number) != number || number < -2147483648.0 ||
      number > 2147483647.0) {
    ThrowType(env, argument, what, value);
  }
  return static_cast<int>(number);
}

template <typename E>
E EnumArg(Napi::Env env, const Napi::Value &value, const char *argument, const char *what) {
  return static_cast<E>(Int32Arg(env, value, argument, what));
}

// A count or byte size: a non-negative safe integer.
size_t SizeArg(Napi::Env env, const Napi::Value &value, const char *argument) {
  constexpr const char *what = "a non-negative safe integer";
  if (!value.IsNumber()) ThrowType(env, argument, what, value);
  const double number = value.As<Napi::Number>().DoubleValue();
  if (!std::isfinite(number) || std::trunc(number) != number) ThrowType(env, argument, what, value);
  if (number < 0 || number > 9007199254740991.0) {
    ThrowRange(env, argument, what, Describe(env, value));
  }
  return static_cast<size_t>(number);
}

// A device (or host) address: a bigint in [0, 2^64).
void *PointerArg(Napi::Env env, const Napi::Value &value, const char *argument) {
  constexpr const char *what = "a device pointer as a bigint";
  if (!value.IsBigInt()) ThrowType(env, argument, what, value);
  bool lossless = false;
  const uint64_t address = value.As<Napi::BigInt>().Uint64Value(&lossless);
  if (!lossless) ThrowRange(env, argument, "a bigint from 0n to 2n ** 64n - 1n", Describe(env, value));
  return reinterpret_cast<void *>(static_cast<uintptr_t>(address));
}

// alpha / beta: a Float32Array(1) or Float64Array(1), read by cuDNN through a host pointer whose
// type follows the compute type. Checked when converted; get() reads the data pointer again at
// the call (JavaScript run by a later conversion could have detached the buffer meanwhile).
class ScaleArg {
 public:
  ScaleArg(Napi::Env env, const Napi::Value &value, const char *argument)
      : env_(env), value_(value), argument_(argument) {
    Check();
  }
  const void *get() const { return Check(); }

 private:
  const void *Check() const {
    constexpr const char *what = "a Float32Array(1) or Float64Array(1)";
    if (!value_.IsTypedArray()) ThrowType(env_, argument_, what, value_);
    Napi::TypedArray array = value_.As<Napi::TypedArray>();
    const napi_typedarray_type type = array.TypedArrayType();
    if (type != napi_float32_array && type != napi_float64_array) {
      ThrowType(env_, argument_, what, value_);
    }
    void *data = nullptr;
    size_t length = 0;
    napi_get_typedarray_info(env_, array, nullptr, &length, &data, nullptr, nullptr);
    if (length != 1 || data == nullptr) {
      ThrowRange(env_, argument_, what,
                 std::string(type == napi_float32_array ? "a Float32Array" : "a Float64Array") +
                     " of length " + std::to_string(length));
    }
    return data;
  }
  Napi::Env env_;
  Napi::Value value_;
  const char *argument_;
};

// Every element of a JS array, read once, in order. Reading runs JavaScript when an element is an
// accessor or the array has a getter on its prototype chain; callers unwrap nothing before this.
std::vector<Napi::Value> ArrayElements(const Napi::Array &array) {
  const uint32_t length = array.Length();
  std::vector<Napi::Value> elements;
  elements.reserve(length);
  for (uint32_t i = 0; i < length; ++i) elements.push_back(array.Get(i));
  return elements;
}

// An int[] argument: an Int32Array or an array of int32 numbers, of exactly `count` elements.
std::vector<int> IntArrayArg(Napi::Env env, const Napi::Value &value, const char *argument,
                             int count) {
  const std::string what =
      "an Int32Array or an array of " + std::to_string(count < 0 ? 0 : count) + " int32 values";
  std::vector<int> out;
  if (value.IsTypedArray() && value.As<Napi::TypedArray>().TypedArrayType() == napi_int32_array) {
    Napi::Int32Array array = value.As<Napi::Int32Array>();
    if (count < 0 || array.ElementLength() != static_cast<size_t>(count)) {
      ThrowRange(env, argument, what,
                 "an Int32Array of length " + std::to_string(array.ElementLength()));
    }
    out.assign(array.Data(), array.Data() + array.ElementLength());
    return out;
  }
  if (!value.IsArray()) ThrowType(env, argument, what, value);
  Napi::Array array = value.As<Napi::Array>();
  if (count < 0 || array.Length() != static_cast<uint32_t>(count)) {
    ThrowRange(env, argument, what, "an array of length " + std::to_string(array.Length()));
  }
  out.resize(array.Length());
  for (uint32_t i = 0; i < array.Length(); ++i) {
    const std::string element = std::string(argument) + "[" + std::to_string(i) + "]";
    out[i] = Int32Arg(env, array.Get(i), element.c_str());
  }
  return out;
}

// nbDimsRequested and the like: how many elements the caller wants back; sizes our buffers.
int RequestedCountArg(Napi::Env env, const Napi::Value &value, const char *argument, int max) {
  const int count = Int32Arg(env, value, argument);
  if (count < 0 || count > max) {
    ThrowRange(env, argument, "an integer from 0 to " + std::to_string(max),
               Describe(env, value));
  }
  return count;
}

// ---------------------------------------------------------------------------------------------
// Results

Napi::Number Status(Napi::Env env, cudnnStatus_t status) {
  return Napi::Number::New(env, static_cast<int>(status));
}

Napi::Object Result(Napi::Env env, cudnnStatus_t status) {
  Napi::Object result = Napi::Object::New(env);
  Put(result, "status", Status(env, status));
  return result;
}

Napi::Array IntArray(Napi::Env env, const int *values, size_t count) {
  Napi::Array array = Napi::Array::New(env, count);
  for (size_t i = 0; i < count; ++i) PutIndex(array, static_cast<uint32_t>(i), values[i]);
  return array;
}

// Wraps a freshly created C object; null when creation failed.
Napi::Value Wrap(Napi::Env env, Kind kind, void *ptr, cudnnStatus_t status) {
  if (static_cast<int>(status) != k::CUDNN_STATUS_SUCCESS || ptr == nullptr) return env.Null();
  AddonData *data = env.GetInstanceData<AddonData>();
  return data->constructors[kind].New(
      {Napi::External<int>::New(env, &gConstructToken), Napi::External<void>::New(env, ptr)});
}

// Marks a wrapped object destroyed after its destroy call. A second destroy is rejected by
// UnwrapObject with a TypeError ("... but received a destroyed CudnnHandle"), never a double free.
template <typename T, typename F>
Napi::Value Destroy(const Napi::CallbackInfo &info, Kind kind, const char *argument, F fn) {
  Napi::Env env = info.Env();
  NativeObject *native = UnwrapObject(env, info[0], kind, argument);
  const cudnnStatus_t status = fn(static_cast<T>(native->ptr()));
  // The C object is gone (or unusable) whatever the status: never hand it to cuDNN again.
  native->MarkDestroyed();
  return Status(env, status);
}

// ---------------------------------------------------------------------------------------------
// Version, errors

Napi::Value GetVersion(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return Napi::Number::New(env, static_cast<double>(CUDNN_FN(cudnnGetVersion)()));
}

Napi::Value GetMaxDeviceVersion(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return Napi::Number::New(env, static_cast<double>(CUDNN_FN(cudnnGetMaxDeviceVersion)()));
}

Napi::Value GetCudartVersion(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return Napi::Number::New(env, static_cast<double>(CUDNN_FN(cudnnGetCudartVersion)()));
}

Napi::Value GetProperty(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnGetProperty);
  auto type = EnumArg<libraryPropertyType>(env, info[0], "type", "a libraryPropertyType");
  int value = 0;
  Napi::Object result = Result(env, fn(type, &value));
  Put(result, "value", value);
  return result;
}

Napi::Value GetErrorString(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnGetErrorString);
  auto status = EnumArg<cudnnStatus_t>(env, info[0], "status", "a cudnnStatus_t");
  const char *text = fn(status);
  return Napi::String::New(env, text ? text : "");
}

Napi::Value GetLastErrorString(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnGetLastErrorString);
  char message[4096];
  message[0] = '\0';
  fn(message, sizeof message);
  message[sizeof message - 1] = '\0';
  return Napi::String::New(env, message);
}

// ---------------------------------------------------------------------------------------------
// Handle

Napi::Value Create(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnCreate);
  cudnnHandle_t handle = nullptr;
  const cudnnStatus_t status = fn(&handle);
  Napi::Object result = Result(env, status);
  Put(result, "handle", Wrap(env, kHandle, handle, status));
  return result;
}

Napi::Value DestroyHandle(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return Destroy<cudnnHandle_t>(info, kHandle, "handle", CUDNN_FN(cudnnDestroy));
}

Napi::Value SetStream(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnSetStream);
  auto handle = HandleArg(env, info[0], "handle");
  auto stream = static_cast<cudaStream_t>(PointerArg(env, info[1], "streamId"));
  return Status(env, fn(handle.get(), stream));
}

Napi::Value GetStream(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnGetStream);
  auto handle = HandleArg(env, info[0], "handle");
  cudaStream_t stream = nullptr;
  Napi::Object result = Result(env, fn(handle.get(), &stream));
  Put(result, "streamId", Napi::BigInt::New(env, static_cast<uint64_t>(
                                                    reinterpret_cast<uintptr_t>(stream))));
  return result;
}

// ---------------------------------------------------------------------------------------------
// Tensor, filter, activation descriptors

template <typename T, Kind K, typename F>
Napi::Value CreateDescriptor(const Napi::CallbackInfo &info, F fn, const char *outName) {
  Napi::Env env = info.Env();
  T descriptor = nullptr;
  const cudnnStatus_t status = fn(&descriptor);
  Napi::Object result = Result(env, status);
  Put(result, outName, Wrap(env, K, descriptor, status));
  return result;
}

Napi::Value CreateTensorDescriptor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return CreateDescriptor<cudnnTensorDescriptor_t, kTensor>(
      info, CUDNN_FN(cudnnCreateTensorDescriptor), "tensorDesc");
}

Napi::Value SetTensorNdDescriptor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnSetTensorNdDescriptor);
  auto desc = TensorArg(env, info[0], "tensorDesc");
  auto dataType = EnumArg<cudnnDataType_t>(env, info[1], "dataType", "a cudnnDataType_t");
  const int nbDims = Int32Arg(env, info[2], "nbDims");
  auto dims = IntArrayArg(env, info[3], "dimA", nbDims);
  auto strides = IntArrayArg(env, info[4], "strideA", nbDims);
  return Status(env, fn(desc.get(), dataType, nbDims, dims.data(), strides.data()));
}

Napi::Value SetTensorNdDescriptorEx(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnSetTensorNdDescriptorEx);
  auto desc = TensorArg(env, info[0], "tensorDesc");
  auto format = EnumArg<cudnnTensorFormat_t>(env, info[1], "format", "a cudnnTensorFormat_t");
  auto dataType = EnumArg<cudnnDataType_t>(env, info[2], "dataType", "a cudnnDataType_t");
  const int nbDims = Int32Arg(env, info[3], "nbDims");
  auto dims = IntArrayArg(env, info[4], "dimA", nbDims);
  return Status(env, fn(desc.get(), format, dataType, nbDims, dims.data()));
}

Napi::Value GetTensorNdDescriptor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnGetTensorNdDescriptor);
  auto desc = TensorArg(env, info[0], "tensorDesc");
  const int requested = RequestedCountArg(env, info[1], "nbDimsRequested", kCudnnDimMax);
  cudnnDataType_t dataType{};
  int nbDims = 0;
  int dims[kCudnnDimMax] = {};
  int strides[kCudnnDimMax] = {};
  Napi::Object result = Result(env, fn(desc.get(), requested, &dataType, &nbDims, dims, strides));
  const size_t shown = static_cast<size_t>(std::max(0, std::min(nbDims, requested)));
  Put(result, "dataType", static_cast<int>(dataType));
  Put(result, "nbDims", nbDims);
  Put(result, "dimA", IntArray(env, dims, shown));
  Put(result, "strideA", IntArray(env, strides, shown));
  return result;
}

Napi::Value GetTensorSizeInBytes(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnGetTensorSizeInBytes);
  auto desc = TensorArg(env, info[0], "tensorDesc");
  size_t size = 0;
  Napi::Object result = Result(env, fn(desc.get(), &size));
  Put(result, "size", Napi::Number::New(env, static_cast<double>(size)));
  return result;
}

Napi::Value DestroyTensorDescriptor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return Destroy<cudnnTensorDescriptor_t>(info, kTensor, "tensorDesc",
                                          CUDNN_FN(cudnnDestroyTensorDescriptor));
}

Napi::Value CreateFilterDescriptor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return CreateDescriptor<cudnnFilterDescriptor_t, kFilter>(
      info, CUDNN_FN(cudnnCreateFilterDescriptor), "filterDesc");
}

Napi::Value SetFilterNdDescriptor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnSetFilterNdDescriptor);
  auto desc = FilterArg(env, info[0], "filterDesc");
  auto dataType = EnumArg<cudnnDataType_t>(env, info[1], "dataType", "a cudnnDataType_t");
  auto format = EnumArg<cudnnTensorFormat_t>(env, info[2], "format", "a cudnnTensorFormat_t");
  const int nbDims = Int32Arg(env, info[3], "nbDims");
  auto dims = IntArrayArg(env, info[4], "filterDimA", nbDims);
  return Status(env, fn(desc.get(), dataType, format, nbDims, dims.data()));
}

Napi::Value GetFilterNdDescriptor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnGetFilterNdDescriptor);
  auto desc = FilterArg(env, info[0], "filterDesc");
  const int requested = RequestedCountArg(env, info[1], "nbDimsRequested", kCudnnDimMax);
  cudnnDataType_t dataType{};
  cudnnTensorFormat_t format{};
  int nbDims = 0;
  int dims[kCudnnDimMax] = {};
  Napi::Object result = Result(env, fn(desc.get(), requested, &dataType, &format, &nbDims, dims));
  const size_t shown = static_cast<size_t>(std::max(0, std::min(nbDims, requested)));
  Put(result, "dataType", static_cast<int>(dataType));
  Put(result, "format", static_cast<int>(format));
  Put(result, "nbDims", nbDims);
  Put(result, "filterDimA", IntArray(env, dims, shown));
  return result;
}

Napi::Value DestroyFilterDescriptor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return Destroy<cudnnFilterDescriptor_t>(info, kFilter, "filterDesc",
                                          CUDNN_FN(cudnnDestroyFilterDescriptor));
}

Napi::Value CreateActivationDescriptor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return CreateDescriptor<cudnnActivationDescriptor_t, kActivation>(
      info, CUDNN_FN(cudnnCreateActivationDescriptor), "activationDesc");
}

Napi::Value SetActivationDescriptor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnSetActivationDescriptor);
  auto desc = ActivationArg(env, info[0], "activationDesc");
  auto mode = EnumArg<cudnnActivationMode_t>(env, info[1], "mode", "a cudnnActivationMode_t");
  auto nan = EnumArg<cudnnNanPropagation_t>(env, info[2], "reluNanOpt", "a cudnnNanPropagation_t");
  if (!info[3].IsNumber()) ThrowType(env, "coef", "a number", info[3]);
  const double coef = info[3].As<Napi::Number>().DoubleValue();
  return Status(env, fn(desc.get(), mode, nan, coef));
}

Napi::Value GetActivationDescriptor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnGetActivationDescriptor);
  auto desc = ActivationArg(env, info[0], "activationDesc");
  cudnnActivationMode_t mode{};
  cudnnNanPropagation_t nan{};
  double coef = 0;
  Napi::Object result = Result(env, fn(desc.get(), &mode, &nan, &coef));
  Put(result, "mode", static_cast<int>(mode));
  Put(result, "reluNanOpt", static_cast<int>(nan));
  Put(result, "coef", coef);
  return result;
}

Napi::Value DestroyActivationDescriptor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return Destroy<cudnnActivationDescriptor_t>(info, kActivation, "activationDesc",
                                              CUDNN_FN(cudnnDestroyActivationDescriptor));
}

// ---------------------------------------------------------------------------------------------
// Convolution descriptor

Napi::Value CreateConvolutionDescriptor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return CreateDescriptor<cudnnConvolutionDescriptor_t, kConvolution>(
      info, CUDNN_FN(cudnnCreateConvolutionDescriptor), "convDesc");
}

Napi::Value DestroyConvolutionDescriptor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return Destroy<cudnnConvolutionDescriptor_t>(info, kConvolution, "convDesc",
                                               CUDNN_FN(cudnnDestroyConvolutionDescriptor));
}

Napi::Value SetConvolutionNdDescriptor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnSetConvolutionNdDescriptor);
  auto desc = ConvArg(env, info[0], "convDesc");
  const int length = Int32Arg(env, info[1], "arrayLength");
  auto pad = IntArrayArg(env, info[2], "padA", length);
  auto stride = IntArrayArg(env, info[3], "filterStrideA", length);
  auto dilation = IntArrayArg(env, info[4], "dilationA", length);
  auto mode = EnumArg<cudnnConvolutionMode_t>(env, info[5], "mode", "a cudnnConvolutionMode_t");
  auto computeType = EnumArg<cudnnDataType_t>(env, info[6], "computeType", "a cudnnDataType_t");
  return Status(env, fn(desc.get(), length, pad.data(), stride.data(), dilation.data(), mode,
                        computeType));
}

Napi::Value GetConvolutionNdDescriptor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnGetConvolutionNdDescriptor);
  auto desc = ConvArg(env, info[0], "convDesc");
  const int requested =
      RequestedCountArg(env, info[1], "arrayLengthRequested", kCudnnDimMax - 2);
  int length = 0;
  int pad[kCudnnDimMax] = {};
  int stride[kCudnnDimMax] = {};
  int dilation[kCudnnDimMax] = {};
  cudnnConvolutionMode_t mode{};
  cudnnDataType_t computeType{};
  Napi::Object result =
      Result(env, fn(desc.get(), requested, &length, pad, stride, dilation, &mode, &computeType));
  const size_t shown = static_cast<size_t>(std::max(0, std::min(length, requested)));
  Put(result, "arrayLength", length);
  Put(result, "padA", IntArray(env, pad, shown));
  Put(result, "strideA", IntArray(env, stride, shown));
  Put(result, "dilationA", IntArray(env, dilation, shown));
  Put(result, "mode", static_cast<int>(mode));
  Put(result, "computeType", static_cast<int>(computeType));
  return result;
}

Napi::Value GetConvolutionNdForwardOutputDim(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnGetConvolutionNdForwardOutputDim);
  auto conv = ConvArg(env, info[0], "convDesc");
  auto input = TensorArg(env, info[1], "inputTensorDesc");
  auto filter = FilterArg(env, info[2], "filterDesc");
  const int nbDims = RequestedCountArg(env, info[3], "nbDims", kCudnnDimMax);
  int dims[kCudnnDimMax] = {};
  Napi::Object result = Result(env, fn(conv.get(), input.get(), filter.get(), nbDims, dims));
  Napi::Array out = IntArray(env, dims, static_cast<size_t>(nbDims));
  // The C parameter is spelled tensorOuputDimA; tensorOutputDimA is the same array.
  Put(result, "tensorOuputDimA", out);
  Put(result, "tensorOutputDimA", out);
  return result;
}

#define CONV_SETTER(jsName, cName, Type, argName, what)                          \
  Napi::Value jsName(const Napi::CallbackInfo &info) {                           \
    Napi::Env env = info.Env();                                                  \
    auto fn = CUDNN_FN(cName);                                                   \
    auto desc = ConvArg(env, info[0], "convDesc");                               \
    auto value = EnumArg<Type>(env, info[1], argName, what);                     \
    return Status(env, fn(desc.get(), value));                                         \
  }
#define CONV_GETTER(jsName, cName, Type, outName)                                \
  Napi::Value jsName(const Napi::CallbackInfo &info) {                           \
    Napi::Env env = info.Env();                                                  \
    auto fn = CUDNN_FN(cName);                                                   \
    auto desc = ConvArg(env, info[0], "convDesc");                               \
    Type value{};                                                                \
    Napi::Object result = Result(env, fn(desc.get(), &value));                         \
    Put(result, outName, static_cast<int>(value));                                \
    return result;                                                               \
  }
CONV_SETTER(SetConvolutionMathType, cudnnSetConvolutionMathType, cudnnMathType_t, "mathType",
            "a cudnnMathType_t")
CONV_GETTER(GetConvolutionMathType, cudnnGetConvolutionMathType, cudnnMathType_t, "mathType")
CONV_SETTER(SetConvolutionGroupCount, cudnnSetConvolutionGroupCount, int, "groupCount",
            "an int32")
CONV_GETTER(GetConvolutionGroupCount, cudnnGetConvolutionGroupCount, int, "groupCount")
CONV_SETTER(SetConvolutionReorderType, cudnnSetConvolutionReorderType, cudnnReorderType_t,
            "reorderType", "a cudnnReorderType_t")
CONV_GETTER(GetConvolutionReorderType, cudnnGetConvolutionReorderType, cudnnReorderType_t,
            "reorderType")
#undef CONV_SETTER
#undef CONV_GETTER

// ---------------------------------------------------------------------------------------------
// Forward, backward data, backward filter

template <typename Perf>
Napi::Object PerfResults(Napi::Env env, cudnnStatus_t status, int returned,
                         const std::vector<Perf> &perf) {
  Napi::Object result = Result(env, status);
  Put(result, "returnedAlgoCount", returned);
  const size_t shown =
      static_cast<size_t>(std::max(0, std::min(returned, static_cast<int>(perf.size()))));
  Napi::Array list = Napi::Array::New(env, shown);
  for (size_t i = 0; i < shown; ++i) {
    Napi::Object entry = Napi::Object::New(env);
    Put(entry, "algo", static_cast<int>(perf[i].algo));
    Put(entry, "status", static_cast<int>(perf[i].status));
    Put(entry, "time", static_cast<double>(perf[i].time));
    Put(entry, "memory", static_cast<double>(perf[i].memory));
    Put(entry, "determinism", static_cast<int>(perf[i].determinism));
    Put(entry, "mathType", static_cast<int>(perf[i].mathType));
    PutIndex(list, static_cast<uint32_t>(i), entry);
  }
  Put(result, "perfResults", list);
  return result;
}

// requestedAlgoCount sizes the perf-result buffer we allocate: 0..1024.
int AlgoCountArg(Napi::Env env, const Napi::Value &value) {
  return RequestedCountArg(env, value, "requestedAlgoCount", 1024);
}

Napi::Value MaxCount(const Napi::CallbackInfo &info, PFN_cudnnGetConvolutionForwardAlgorithmMaxCount fn) {
  Napi::Env env = info.Env();
  auto handle = HandleArg(env, info[0], "handle");
  int count = 0;
  Napi::Object result = Result(env, fn(handle.get(), &count));
  Put(result, "count", count);
  return result;
}

Napi::Value GetConvolutionForwardAlgorithmMaxCount(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return MaxCount(info, CUDNN_FN(cudnnGetConvolutionForwardAlgorithmMaxCount));
}
Napi::Value GetConvolutionBackwardDataAlgorithmMaxCount(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return MaxCount(info, CUDNN_FN(cudnnGetConvolutionBackwardDataAlgorithmMaxCount));
}
Napi::Value GetConvolutionBackwardFilterAlgorithmMaxCount(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return MaxCount(info, CUDNN_FN(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount));
}

Napi::Value GetConvolutionForwardAlgorithm_v7(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnGetConvolutionForwardAlgorithm_v7);
  auto handle = HandleArg(env, info[0], "handle");
  auto x = TensorArg(env, info[1], "srcDesc");
  auto w = FilterArg(env, info[2], "filterDesc");
  auto conv = ConvArg(env, info[3], "convDesc");
  auto y = TensorArg(env, info[4], "destDesc");
  const int requested = AlgoCountArg(env, info[5]);
  std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(static_cast<size_t>(requested));
  int returned = 0;
  const cudnnStatus_t status = fn(handle.get(), x.get(), w.get(), conv.get(), y.get(), requested, &returned, perf.data());
  return PerfResults(env, status, returned, perf);
}

Napi::Value FindConvolutionForwardAlgorithmEx(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnFindConvolutionForwardAlgorithmEx);
  auto handle = HandleArg(env, info[0], "handle");
  auto xDesc = TensorArg(env, info[1], "xDesc");
  auto x = PointerArg(env, info[2], "x");
  auto wDesc = FilterArg(env, info[3], "wDesc");
  auto w = PointerArg(env, info[4], "w");
  auto conv = ConvArg(env, info[5], "convDesc");
  auto yDesc = TensorArg(env, info[6], "yDesc");
  auto y = PointerArg(env, info[7], "y");
  const int requested = AlgoCountArg(env, info[8]);
  auto workSpace = PointerArg(env, info[9], "workSpace");
  const size_t workSpaceSize = SizeArg(env, info[10], "workSpaceSizeInBytes");
  std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(static_cast<size_t>(requested));
  int returned = 0;
  const cudnnStatus_t status = fn(handle.get(), xDesc.get(), x, wDesc.get(), w, conv.get(), yDesc.get(), y, requested,
                                  &returned, perf.data(), workSpace, workSpaceSize);
  return PerfResults(env, status, returned, perf);
}

Napi::Value GetConvolutionForwardWorkspaceSize(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnGetConvolutionForwardWorkspaceSize);
  auto handle = HandleArg(env, info[0], "handle");
  auto x = TensorArg(env, info[1], "xDesc");
  auto w = FilterArg(env, info[2], "wDesc");
  auto conv = ConvArg(env, info[3], "convDesc");
  auto y = TensorArg(env, info[4], "yDesc");
  auto algo = EnumArg<cudnnConvolutionFwdAlgo_t>(env, info[5], "algo",
                                                 "a cudnnConvolutionFwdAlgo_t");
  size_t size = 0;
  Napi::Object result = Result(env, fn(handle.get(), x.get(), w.get(), conv.get(), y.get(), algo, &size));
  Put(result, "sizeInBytes", Napi::Number::New(env, static_cast<double>(size)));
  return result;
}

Napi::Value TransformTensor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnTransformTensor);
  auto handle = HandleArg(env, info[0], "handle");
  auto alpha = ScaleArg(env, info[1], "alpha");
  auto xDesc = TensorArg(env, info[2], "xDesc");
  auto x = PointerArg(env, info[3], "x");
  auto beta = ScaleArg(env, info[4], "beta");
  auto yDesc = TensorArg(env, info[5], "yDesc");
  auto y = PointerArg(env, info[6], "y");
  return Status(env, fn(handle.get(), alpha.get(), xDesc.get(), x, beta.get(), yDesc.get(), y));
}

Napi::Value ConvolutionForward(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnConvolutionForward);
  auto handle = HandleArg(env, info[0], "handle");
  auto alpha = ScaleArg(env, info[1], "alpha");
  auto xDesc = TensorArg(env, info[2], "xDesc");
  auto x = PointerArg(env, info[3], "x");
  auto wDesc = FilterArg(env, info[4], "wDesc");
  auto w = PointerArg(env, info[5], "w");
  auto conv = ConvArg(env, info[6], "convDesc");
  auto algo = EnumArg<cudnnConvolutionFwdAlgo_t>(env, info[7], "algo",
                                                 "a cudnnConvolutionFwdAlgo_t");
  auto workSpace = PointerArg(env, info[8], "workSpace");
  const size_t workSpaceSize = SizeArg(env, info[9], "workSpaceSizeInBytes");
  auto beta = ScaleArg(env, info[10], "beta");
  auto yDesc = TensorArg(env, info[11], "yDesc");
  auto y = PointerArg(env, info[12], "y");
  return Status(env, fn(handle.get(), alpha.get(), xDesc.get(), x, wDesc.get(), w, conv.get(), algo, workSpace, workSpaceSize,
                        beta.get(), yDesc.get(), y));
}

Napi::Value ConvolutionBiasActivationForward(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnConvolutionBiasActivationForward);
  auto handle = HandleArg(env, info[0], "handle");
  auto alpha1 = ScaleArg(env, info[1], "alpha1");
  auto xDesc = TensorArg(env, info[2], "xDesc");
  auto x = PointerArg(env, info[3], "x");
  auto wDesc = FilterArg(env, info[4], "wDesc");
  auto w = PointerArg(env, info[5], "w");
  auto conv = ConvArg(env, info[6], "convDesc");
  auto algo = EnumArg<cudnnConvolutionFwdAlgo_t>(env, info[7], "algo",
                                                 "a cudnnConvolutionFwdAlgo_t");
  auto workSpace = PointerArg(env, info[8], "workSpace");
  const size_t workSpaceSize = SizeArg(env, info[9], "workSpaceSizeInBytes");
  auto alpha2 = ScaleArg(env, info[10], "alpha2");
  auto zDesc = TensorArg(env, info[11], "zDesc");
  auto z = PointerArg(env, info[12], "z");
  auto biasDesc = TensorArg(env, info[13], "biasDesc");
  auto bias = PointerArg(env, info[14], "bias");
  auto activation = ActivationArg(env, info[15], "activationDesc");
  auto yDesc = TensorArg(env, info[16], "yDesc");
  auto y = PointerArg(env, info[17], "y");
  return Status(env, fn(handle.get(), alpha1.get(), xDesc.get(), x, wDesc.get(), w, conv.get(), algo, workSpace, workSpaceSize,
                        alpha2.get(), zDesc.get(), z, biasDesc.get(), bias, activation.get(), yDesc.get(), y));
}

Napi::Value GetConvolutionBackwardDataAlgorithm_v7(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnGetConvolutionBackwardDataAlgorithm_v7);
  auto handle = HandleArg(env, info[0], "handle");
  auto w = FilterArg(env, info[1], "filterDesc");
  auto dy = TensorArg(env, info[2], "diffDesc");
  auto conv = ConvArg(env, info[3], "convDesc");
  auto dx = TensorArg(env, info[4], "gradDesc");
  const int requested = AlgoCountArg(env, info[5]);
  std::vector<cudnnConvolutionBwdDataAlgoPerf_t> perf(static_cast<size_t>(requested));
  int returned = 0;
  const cudnnStatus_t status = fn(handle.get(), w.get(), dy.get(), conv.get(), dx.get(), requested, &returned, perf.data());
  return PerfResults(env, status, returned, perf);
}

Napi::Value FindConvolutionBackwardDataAlgorithmEx(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnFindConvolutionBackwardDataAlgorithmEx);
  auto handle = HandleArg(env, info[0], "handle");
  auto wDesc = FilterArg(env, info[1], "wDesc");
  auto w = PointerArg(env, info[2], "w");
  auto dyDesc = TensorArg(env, info[3], "dyDesc");
  auto dy = PointerArg(env, info[4], "dy");
  auto conv = ConvArg(env, info[5], "convDesc");
  auto dxDesc = TensorArg(env, info[6], "dxDesc");
  auto dx = PointerArg(env, info[7], "dx");
  const int requested = AlgoCountArg(env, info[8]);
  auto workSpace = PointerArg(env, info[9], "workSpace");
  const size_t workSpaceSize = SizeArg(env, info[10], "workSpaceSizeInBytes");
  std::vector<cudnnConvolutionBwdDataAlgoPerf_t> perf(static_cast<size_t>(requested));
  int returned = 0;
  const cudnnStatus_t status = fn(handle.get(), wDesc.get(), w, dyDesc.get(), dy, conv.get(), dxDesc.get(), dx, requested,
                                  &returned, perf.data(), workSpace, workSpaceSize);
  return PerfResults(env, status, returned, perf);
}

Napi::Value GetConvolutionBackwardDataWorkspaceSize(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnGetConvolutionBackwardDataWorkspaceSize);
  auto handle = HandleArg(env, info[0], "handle");
  auto w = FilterArg(env, info[1], "wDesc");
  auto dy = TensorArg(env, info[2], "dyDesc");
  auto conv = ConvArg(env, info[3], "convDesc");
  auto dx = TensorArg(env, info[4], "dxDesc");
  auto algo = EnumArg<cudnnConvolutionBwdDataAlgo_t>(env, info[5], "algo",
                                                     "a cudnnConvolutionBwdDataAlgo_t");
  size_t size = 0;
  Napi::Object result = Result(env, fn(handle.get(), w.get(), dy.get(), conv.get(), dx.get(), algo, &size));
  Put(result, "sizeInBytes", Napi::Number::New(env, static_cast<double>(size)));
  return result;
}

Napi::Value ConvolutionBackwardData(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnConvolutionBackwardData);
  auto handle = HandleArg(env, info[0], "handle");
  auto alpha = ScaleArg(env, info[1], "alpha");
  auto wDesc = FilterArg(env, info[2], "wDesc");
  auto w = PointerArg(env, info[3], "w");
  auto dyDesc = TensorArg(env, info[4], "dyDesc");
  auto dy = PointerArg(env, info[5], "dy");
  auto conv = ConvArg(env, info[6], "convDesc");
  auto algo = EnumArg<cudnnConvolutionBwdDataAlgo_t>(env, info[7], "algo",
                                                     "a cudnnConvolutionBwdDataAlgo_t");
  auto workSpace = PointerArg(env, info[8], "workSpace");
  const size_t workSpaceSize = SizeArg(env, info[9], "workSpaceSizeInBytes");
  auto beta = ScaleArg(env, info[10], "beta");
  auto dxDesc = TensorArg(env, info[11], "dxDesc");
  auto dx = PointerArg(env, info[12], "dx");
  return Status(env, fn(handle.get(), alpha.get(), wDesc.get(), w, dyDesc.get(), dy, conv.get(), algo, workSpace,
                        workSpaceSize, beta.get(), dxDesc.get(), dx));
}

Napi::Value GetConvolutionBackwardFilterAlgorithm_v7(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnGetConvolutionBackwardFilterAlgorithm_v7);
  auto handle = HandleArg(env, info[0], "handle");
  auto x = TensorArg(env, info[1], "srcDesc");
  auto dy = TensorArg(env, info[2], "diffDesc");
  auto conv = ConvArg(env, info[3], "convDesc");
  auto dw = FilterArg(env, info[4], "gradDesc");
  const int requested = AlgoCountArg(env, info[5]);
  std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> perf(static_cast<size_t>(requested));
  int returned = 0;
  const cudnnStatus_t status = fn(handle.get(), x.get(), dy.get(), conv.get(), dw.get(), requested, &returned, perf.data());
  return PerfResults(env, status, returned, perf);
}

Napi::Value FindConvolutionBackwardFilterAlgorithmEx(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnFindConvolutionBackwardFilterAlgorithmEx);
  auto handle = HandleArg(env, info[0], "handle");
  auto xDesc = TensorArg(env, info[1], "xDesc");
  auto x = PointerArg(env, info[2], "x");
  auto dyDesc = TensorArg(env, info[3], "dyDesc");
  auto dy = PointerArg(env, info[4], "y");
  auto conv = ConvArg(env, info[5], "convDesc");
  auto dwDesc = FilterArg(env, info[6], "dwDesc");
  auto dw = PointerArg(env, info[7], "dw");
  const int requested = AlgoCountArg(env, info[8]);
  auto workSpace = PointerArg(env, info[9], "workSpace");
  const size_t workSpaceSize = SizeArg(env, info[10], "workSpaceSizeInBytes");
  std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> perf(static_cast<size_t>(requested));
  int returned = 0;
  const cudnnStatus_t status = fn(handle.get(), xDesc.get(), x, dyDesc.get(), dy, conv.get(), dwDesc.get(), dw, requested,
                                  &returned, perf.data(), workSpace, workSpaceSize);
  return PerfResults(env, status, returned, perf);
}

Napi::Value GetConvolutionBackwardFilterWorkspaceSize(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnGetConvolutionBackwardFilterWorkspaceSize);
  auto handle = HandleArg(env, info[0], "handle");
  auto x = TensorArg(env, info[1], "xDesc");
  auto dy = TensorArg(env, info[2], "dyDesc");
  auto conv = ConvArg(env, info[3], "convDesc");
  auto dw = FilterArg(env, info[4], "gradDesc");
  auto algo = EnumArg<cudnnConvolutionBwdFilterAlgo_t>(env, info[5], "algo",
                                                       "a cudnnConvolutionBwdFilterAlgo_t");
  size_t size = 0;
  Napi::Object result = Result(env, fn(handle.get(), x.get(), dy.get(), conv.get(), dw.get(), algo, &size));
  Put(result, "sizeInBytes", Napi::Number::New(env, static_cast<double>(size)));
  return result;
}

Napi::Value ConvolutionBackwardFilter(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnConvolutionBackwardFilter);
  auto handle = HandleArg(env, info[0], "handle");
  auto alpha = ScaleArg(env, info[1], "alpha");
  auto xDesc = TensorArg(env, info[2], "xDesc");
  auto x = PointerArg(env, info[3], "x");
  auto dyDesc = TensorArg(env, info[4], "dyDesc");
  auto dy = PointerArg(env, info[5], "dy");
  auto conv = ConvArg(env, info[6], "convDesc");
  auto algo = EnumArg<cudnnConvolutionBwdFilterAlgo_t>(env, info[7], "algo",
                                                       "a cudnnConvolutionBwdFilterAlgo_t");
  auto workSpace = PointerArg(env, info[8], "workSpace");
  const size_t workSpaceSize = SizeArg(env, info[9], "workSpaceSizeInBytes");
  auto beta = ScaleArg(env, info[10], "beta");
  auto dwDesc = FilterArg(env, info[11], "dwDesc");
  auto dw = PointerArg(env, info[12], "dw");
  return Status(env, fn(handle.get(), alpha.get(), xDesc.get(), x, dyDesc.get(), dy, conv.get(), algo, workSpace,
                        workSpaceSize, beta.get(), dwDesc.get(), dw));
}

// ---------------------------------------------------------------------------------------------
// Backend (graph) API

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

// ---------------------------------------------------------------------------------------------
// Probe and constants

Napi::Array Attempts(Napi::Env env, const std::vector<LoadAttempt> &attempts) {
  Napi::Array array = Napi::Array::New(env, attempts.size());
  for (size_t i = 0; i < attempts.size(); ++i) {
    Napi::Object entry = Napi::Object::New(env);
    Put(entry, "path", attempts[i].path);
    Put(entry, "error", attempts[i].error);
    PutIndex(array, static_cast<uint32_t>(i), entry);
  }
  return array;
}

// Loads cuDNN if that was not tried yet and reports the outcome. Never throws.
Napi::Value Probe(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  const LoadState &state = EnsureLoaded();
  Napi::Object result = Napi::Object::New(env);
  Put(result, "available", state.available);
  Put(result, "version", Napi::Number::New(env, static_cast<double>(state.version)));
  Put(result, "cudartVersion", Napi::Number::New(env, static_cast<double>(state.cudartVersion)));
  Put(result, "libraryPath", state.libraryPath);
  Put(result, "tried", Attempts(env, state.tried));
  Put(result, "preloaded", Attempts(env, state.preloaded));
  Napi::Array missing = Napi::Array::New(env, state.missingSymbols.size());
  for (size_t i = 0; i < state.missingSymbols.size(); ++i) {
    PutIndex(missing, static_cast<uint32_t>(i), state.missingSymbols[i]);
  }
  Put(result, "missingSymbols", missing);
  Put(result, "reason", state.reason);
  return result;
}

Napi::Value NativeConstants(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  Napi::Object table = Napi::Object::New(env);
#define BARACUDA_CUDNN_EXPORT_CONSTANT(name, value) Put(table, #name, value);
  BARACUDA_CUDNN_CONSTANTS(BARACUDA_CUDNN_EXPORT_CONSTANT)
  BARACUDA_CUDNN_CONSTANTS_VERSIONED(BARACUDA_CUDNN_EXPORT_CONSTANT)
#undef BARACUDA_CUDNN_EXPORT_CONSTANT
  Put(table, "CUDNN_DIM_MAX", kCudnnDimMax);
  return table;
}

// ---------------------------------------------------------------------------------------------

}  // namespace

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto *data = new AddonData();
  for (int kind = 0; kind < kKindCount; ++kind) {
    Napi::Function constructor = NativeObject::DefineClass(
        env, kKindNames[kind], {}, reinterpret_cast<void *>(static_cast<intptr_t>(kind)));
    data->constructors[kind] = Napi::Persistent(constructor);
    exports.Set(kKindNames[kind], constructor);
  }
  env.SetInstanceData<AddonData>(data);

  struct Entry {
    const char *name;
    Napi::Value (*fn)(const Napi::CallbackInfo &);
  };
  static const Entry entries[] = {
      {"probe", Probe},
      {"nativeConstants", NativeConstants},
      {"cudnnGetVersion", GetVersion},
      {"cudnnGetMaxDeviceVersion", GetMaxDeviceVersion},
      {"cudnnGetCudartVersion", GetCudartVersion},
      {"cudnnGetProperty", GetProperty},
      {"cudnnGetErrorString", GetErrorString},
      {"cudnnGetLastErrorString", GetLastErrorString},
      {"cudnnCreate", Create},
      {"cudnnDestroy", DestroyHandle},
      {"cudnnSetStream", SetStream},
      {"cudnnGetStream", GetStream},
      {"cudnnCreateTensorDescriptor", CreateTensorDescriptor},
      {"cudnnSetTensorNdDescriptor", SetTensorNdDescriptor},
      {"cudnnSetTensorNdDescriptorEx", SetTensorNdDescriptorEx},
      {"cudnnGetTensorNdDescriptor", GetTensorNdDescriptor},
      {"cudnnTransformTensor", TransformTensor},
      {"cudnnGetTensorSizeInBytes", GetTensorSizeInBytes},
      {"cudnnDestroyTensorDescriptor", DestroyTensorDescriptor},
      {"cudnnCreateFilterDescriptor", CreateFilterDescriptor},
      {"cudnnSetFilterNdDescriptor", SetFilterNdDescriptor},
      {"cudnnGetFilterNdDescriptor", GetFilterNdDescriptor},
      {"cudnnDestroyFilterDescriptor", DestroyFilterDescriptor},
      {"cudnnCreateActivationDescriptor", CreateActivationDescriptor},
      {"cudnnSetActivationDescriptor", SetActivationDescriptor},
      {"cudnnGetActivationDescriptor", GetActivationDescriptor},
      {"cudnnDestroyActivationDescriptor", DestroyActivationDescriptor},
      {"cudnnCreateConvolutionDescriptor", CreateConvolutionDescriptor},
      {"cudnnDestroyConvolutionDescriptor", DestroyConvolutionDescriptor},
      {"cudnnSetConvolutionNdDescriptor", SetConvolutionNdDescriptor},
      {"cudnnGetConvolutionNdDescriptor", GetConvolutionNdDescriptor},
      {"cudnnGetConvolutionNdForwardOutputDim", GetConvolutionNdForwardOutputDim},
      {"cudnnSetConvolutionMathType", SetConvolutionMathType},
      {"cudnnGetConvolutionMathType", GetConvolutionMathType},
      {"cudnnSetConvolutionGroupCount", SetConvolutionGroupCount},
      {"cudnnGetConvolutionGroupCount", GetConvolutionGroupCount},
      {"cudnnSetConvolutionReorderType", SetConvolutionReorderType},
      {"cudnnGetConvolutionReorderType", GetConvolutionReorderType},
      {"cudnnGetConvolutionForwardAlgorithmMaxCount", GetConvolutionForwardAlgorithmMaxCount},
      {"cudnnGetConvolutionForwardAlgorithm_v7", GetConvolutionForwardAlgorithm_v7},
      {"cudnnFindConvolutionForwardAlgorithmEx", FindConvolutionForwardAlgorithmEx},
      {"cudnnGetConvolutionForwardWorkspaceSize", GetConvolutionForwardWorkspaceSize},
      {"cudnnConvolutionForward", ConvolutionForward},
      {"cudnnConvolutionBiasActivationForward", ConvolutionBiasActivationForward},
      {"cudnnGetConvolutionBackwardDataAlgorithmMaxCount",
       GetConvolutionBackwardDataAlgorithmMaxCount},
      {"cudnnGetConvolutionBackwardDataAlgorithm_v7", GetConvolutionBackwardDataAlgorithm_v7},
      {"cudnnFindConvolutionBackwardDataAlgorithmEx", FindConvolutionBackwardDataAlgorithmEx},
      {"cudnnGetConvolutionBackwardDataWorkspaceSize", GetConvolutionBackwardDataWorkspaceSize},
      {"cudnnConvolutionBackwardData", ConvolutionBackwardData},
      {"cudnnGetConvolutionBackwardFilterAlgorithmMaxCount",
       GetConvolutionBackwardFilterAlgorithmMaxCount},
      {"cudnnGetConvolutionBackwardFilterAlgorithm_v7", GetConvolutionBackwardFilterAlgorithm_v7},
      {"cudnnFindConvolutionBackwardFilterAlgorithmEx", FindConvolutionBackwardFilterAlgorithmEx},
      {"cudnnGetConvolutionBackwardFilterWorkspaceSize",
       GetConvolutionBackwardFilterWorkspaceSize},
      {"cudnnConvolutionBackwardFilter", ConvolutionBackwardFilter},
      {"cudnnBackendCreateDescriptor", BackendCreateDescriptor},
      {"cudnnBackendDestroyDescriptor", BackendDestroyDescriptor},
      {"cudnnBackendFinalize", BackendFinalize},
      {"cudnnBackendSetAttribute", BackendSetAttribute},
      {"cudnnBackendGetAttribute", BackendGetAttribute},
      {"cudnnBackendExecute", BackendExecute},
  };
  for (const auto &entry : entries) {
    exports.Set(entry.name, Napi::Function::New(env, entry.fn, entry.name));
  }
  return exports;
}

}  // namespace baracuda::cudnn

static Napi::Object InitBaracudaCudnn(Napi::Env env, Napi::Object exports) {
  return baracuda::cudnn::Init(env, exports);
}
NODE_API_MODULE(baracuda_cudnn, InitBaracudaCudnn)
