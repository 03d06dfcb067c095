// Argument conversion, results and library access for the cublaslt-sys bindings (support.h).
#include "support.h"

#include <cmath>
#include <cstring>

namespace baracuda::cublaslt {

namespace {
std::string QuoteJson(const std::u16string &text, Napi::Env env) {
  std::u16string quoted = u"\"";
  static const char16_t *hex = u"0123456789abcdef";
  for (const char16_t c : text) {
    if (c == u'"' || c == u'\\') {
      quoted += u'\\';
      quoted += c;
    } else if (c == u'\n') {
      quoted += u"\\n";
    } else if (c < 0x20 || (c >= 0xD800 && c <= 0xDFFF)) {
      quoted += u"\\u";
      for (int shift = 12; shift >= 0; shift -= 4) quoted += hex[(c >> shift) & 0xF];
    } else {
      quoted += c;
    }
  }
  quoted += u'"';
  return Napi::String::New(env, quoted).Utf8Value();
}
}  // namespace

void PutValue(const Napi::Object &object, const char *key, const Napi::Value &value) {
  object.DefineProperty(Napi::PropertyDescriptor::Value(key, value, napi_default_jsproperty));
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
      return QuoteJson(text, env) + " of type string";
    }
    case napi_bigint:
      return value.ToString().Utf8Value() + "n of type bigint";
    case napi_number:
      return value.ToString().Utf8Value() + " of type number";
    case napi_boolean:
      return value.ToString().Utf8Value() + " of type boolean";
    case napi_function:
      return "a function";
    case napi_symbol:
      return "a value of type symbol";
    default: {
      if (value.IsArray()) {
        return "an array of length " + std::to_string(value.As<Napi::Array>().Length());
      }
      bool tagged = false;
      napi_check_object_type_tag(env, value, &kObjectTag, &tagged);
      if (tagged) {
        LtObject *native = LtObject::Unwrap(value.As<Napi::Object>());
        if (native == nullptr) return "an object";
        return std::string(native->destroyed() ? "a destroyed " : "a live ") +
               KindName(native->kind());
      }
      if (value.IsTypedArray()) {
        return "a typed array of length " +
               std::to_string(value.As<Napi::TypedArray>().ElementLength());
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

const Symbols &Lib(Napi::Env env) {
  const LoadState &state = EnsureLoaded();
  if (!state.available) {
    throw Napi::Error::New(env, "cuBLASLt is not available (" + state.reason +
                                    "); call probe() for every path that was tried");
  }
  return state.sym;
}

LtObject *ObjectArg::native() const {
  const std::string expected = std::string("a live ") + KindName(kind_);
  bool tagged = false;
  if (value_.IsObject()) napi_check_object_type_tag(env_, value_, &kObjectTag, &tagged);
  if (!tagged) ThrowType(env_, argument_, expected, value_);
  LtObject *native = LtObject::Unwrap(value_.As<Napi::Object>());
  if (native == nullptr || native->destroyed() || native->kind() != kind_) {
    ThrowType(env_, argument_, expected, value_);
  }
  return native;
}

int Int32Arg(Napi::Env env, const Napi::Value &value, const char *argument, const char *what) {
  if (!value.IsNumber()) ThrowType(env, argument, what, value);
  const double number = value.As<Napi::Number>().DoubleValue();
  if (!std::isfinite(number) || std::trunc(number) != number || number < -2147483648.0 ||
      number > 2147483647.0) {
    ThrowType(env, argument, what, value);
  }
  return static_cast<int>(number);
}

int64_t SafeIntArg(Napi::Env env, const Napi::Value &value, const char *argument,
                   bool nonNegative) {
  const char *what = nonNegative ? "a non-negative safe integer" : "a safe integer";
  if (!value.IsNumber()) ThrowType(env, argument, what, value);
  const double number = value.As<Napi::Number>().DoubleValue();
  if (!std::isfinite(number) || std::trunc(number) != number ||
      std::fabs(number) > 9007199254740991.0 || (nonNegative && number < 0)) {
    ThrowType(env, argument, what, value);
  }
  return static_cast<int64_t>(number);
}

void *PointerArg(Napi::Env env, const Napi::Value &value, const char *argument) {
  constexpr const char *what = "a bigint address from 0 to 2^64-1";
  if (!value.IsBigInt()) ThrowType(env, argument, what, value);
  bool lossless = false;
  const uint64_t address = value.As<Napi::BigInt>().Uint64Value(&lossless);
  if (!lossless) ThrowType(env, argument, what, value);
  return reinterpret_cast<void *>(static_cast<uintptr_t>(address));
}

std::vector<unsigned char> BytesArg(Napi::Env env, const Napi::Value &value,
                                    const char *argument) {
  constexpr const char *what = "a typed array or DataView holding the value";
  napi_value raw = value;
  bool view = false;
  if (napi_is_typedarray(env, raw, &view) != napi_ok || !view) {
    if (napi_is_dataview(env, raw, &view) != napi_ok || !view) ThrowType(env, argument, what, value);
  }
  // The data pointers napi_get_*_info return already include the view's byte offset, and unlike
  // Napi::ArrayBuffer::Data() they accept a view over a SharedArrayBuffer (ArrayBuffer::Data()
  // fails there with an untyped "Invalid argument").
  void *data = nullptr;
  size_t bytes = 0;
  if (value.IsTypedArray()) {
    napi_typedarray_type type;
    size_t length = 0;
    if (napi_get_typedarray_info(env, raw, &type, &length, &data, nullptr, nullptr) != napi_ok) {
      ThrowType(env, argument, what, value);
    }
    bytes = value.As<Napi::TypedArray>().ByteLength();
  } else if (napi_get_dataview_info(env, raw, &bytes, &data, nullptr, nullptr) != napi_ok) {
    ThrowType(env, argument, what, value);
  }
  if (bytes == 0 || data == nullptr) ThrowType(env, argument, what, value);
  const auto *begin = static_cast<const unsigned char *>(data);
  return std::vector<unsigned char>(begin, begin + bytes);
}

Napi::Number Status(Napi::Env env, cublasStatus_t status) {
  return Napi::Number::New(env, static_cast<double>(status));
}

Napi::Object Result(Napi::Env env, cublasStatus_t status) {
  Napi::Object result = Napi::Object::New(env);
  Put(result, "status", Status(env, status));
  return result;
}

}  // namespace baracuda::cublaslt
