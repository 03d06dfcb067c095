// Argument conversion (no coercion, ever) and results for the cudnn-sys bindings. The rule for
// every binding: convert every argument first, then resolve wrapped objects (ObjectArg::get())
// inside the C call's argument list (docs/ARCHITECTURE.md, native addon conventions).
#pragma once

#include <vector>

#include "support.h"

namespace baracuda::cudnn {

NativeObject *UnwrapObject(Napi::Env env, const Napi::Value &value, Kind kind,
                           const char *argument);

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

ObjectArg<cudnnHandle_t> HandleArg(Napi::Env env, const Napi::Value &v, const char *name);

ObjectArg<cudnnTensorDescriptor_t> TensorArg(Napi::Env env, const Napi::Value &v,
                                             const char *name);

ObjectArg<cudnnFilterDescriptor_t> FilterArg(Napi::Env env, const Napi::Value &v,
                                             const char *name);

ObjectArg<cudnnConvolutionDescriptor_t> ConvArg(Napi::Env env, const Napi::Value &v,
                                                const char *name);

ObjectArg<cudnnActivationDescriptor_t> ActivationArg(Napi::Env env, const Napi::Value &v,
                                                     const char *name);

ObjectArg<cudnnBackendDescriptor_t> BackendArg(Napi::Env env, const Napi::Value &v,
                                               const char *name);

// An int32: a number that is an integer in [-2^31, 2^31). `what` names the C type.
int Int32Arg(Napi::Env env, const Napi::Value &value, const char *argument,
             const char *what = "an int32");

template <typename E>
E EnumArg(Napi::Env env, const Napi::Value &value, const char *argument, const char *what) {
  return static_cast<E>(Int32Arg(env, value, argument, what));
}

// A count or byte size: a non-negative safe integer.
size_t SizeArg(Napi::Env env, const Napi::Value &value, const char *argument);

// A device (or host) address: a bigint in [0, 2^64).
void *PointerArg(Napi::Env env, const Napi::Value &value, const char *argument);

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
std::vector<Napi::Value> ArrayElements(const Napi::Array &array);

// An int[] argument: an Int32Array or an array of int32 numbers, of exactly `count` elements.
std::vector<int> IntArrayArg(Napi::Env env, const Napi::Value &value, const char *argument,
                             int count);

// nbDimsRequested and the like: how many elements the caller wants back; sizes our buffers.
int RequestedCountArg(Napi::Env env, const Napi::Value &value, const char *argument, int max);

// Results

Napi::Number Status(Napi::Env env, cudnnStatus_t status);

Napi::Object Result(Napi::Env env, cudnnStatus_t status);

Napi::Array IntArray(Napi::Env env, const int *values, size_t count);

// Wraps a freshly created C object; null when creation failed.
Napi::Value Wrap(Napi::Env env, Kind kind, void *ptr, cudnnStatus_t status);

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

template <typename T, Kind K, typename F>
Napi::Value CreateDescriptor(const Napi::CallbackInfo &info, F fn, const char *outName) {
  Napi::Env env = info.Env();
  T descriptor = nullptr;
  const cudnnStatus_t status = fn(&descriptor);
  Napi::Object result = Result(env, status);
  Put(result, outName, Wrap(env, K, descriptor, status));
  return result;
}

}  // namespace baracuda::cudnn
