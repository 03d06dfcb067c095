// Argument conversion, results and library access for the nccl-sys bindings (support.h).
#include "support.h"

#include <cmath>
#include <cstring>

namespace baracuda::nccl {

int gConstructToken = 0;

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
      napi_check_object_type_tag(env, value, &kCommTag, &tagged);
      if (tagged) {
        NcclComm *native = NcclComm::Unwrap(value.As<Napi::Object>());
        return native && native->destroyed() ? "a destroyed NcclComm" : "an instance of NcclComm";
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
    throw Napi::Error::New(env, "NCCL is not available (" + state.reason +
                                    "); call probe() for every path that was tried");
  }
  return state.sym;
}

NcclComm *CommArg::native() const {
  bool tagged = false;
  if (value_.IsObject()) napi_check_object_type_tag(env_, value_, &kCommTag, &tagged);
  if (!tagged) ThrowType(env_, argument_, "a live NcclComm", value_);
  NcclComm *native = NcclComm::Unwrap(value_.As<Napi::Object>());
  if (native == nullptr || native->destroyed()) ThrowType(env_, argument_, "a live NcclComm", value_);
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

size_t SizeArg(Napi::Env env, const Napi::Value &value, const char *argument) {
  constexpr const char *what = "a non-negative safe integer";
  if (!value.IsNumber()) ThrowType(env, argument, what, value);
  const double number = value.As<Napi::Number>().DoubleValue();
  if (!std::isfinite(number) || std::trunc(number) != number || number < 0 ||
      number > 9007199254740991.0) {
    ThrowType(env, argument, what, value);
  }
  return static_cast<size_t>(number);
}

void *PointerArg(Napi::Env env, const Napi::Value &value, const char *argument) {
  constexpr const char *what = "a bigint address from 0 to 2^64-1";
  if (!value.IsBigInt()) ThrowType(env, argument, what, value);
  bool lossless = false;
  const uint64_t address = value.As<Napi::BigInt>().Uint64Value(&lossless);
  if (!lossless) ThrowType(env, argument, what, value);
  return reinterpret_cast<void *>(static_cast<uintptr_t>(address));
}

ncclUniqueId UniqueIdArg(Napi::Env env, const Napi::Value &value, const char *argument) {
  constexpr const char *what = "a Uint8Array of 128 bytes (an ncclUniqueId)";
  if (!value.IsTypedArray() ||
      value.As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array) {
    ThrowType(env, argument, what, value);
  }
  Napi::Uint8Array bytes = value.As<Napi::Uint8Array>();
  if (bytes.ElementLength() != BARACUDA_NCCL_UNIQUE_ID_BYTES || bytes.Data() == nullptr) {
    ThrowType(env, argument, what, value);
  }
  ncclUniqueId id{};
  std::memcpy(id.internal, bytes.Data(), sizeof id.internal);
  return id;
}

Napi::Number Status(Napi::Env env, ncclResult_t status) {
  return Napi::Number::New(env, static_cast<double>(status));
}

Napi::Object Result(Napi::Env env, ncclResult_t status) {
  Napi::Object result = Napi::Object::New(env);
  Put(result, "status", Status(env, status));
  return result;
}

Napi::Value WrapComm(Napi::Env env, ncclComm_t comm) {
  if (comm == nullptr) return env.Null();
  auto *data = env.GetInstanceData<AddonData>();
  return data->commConstructor.New(
      {Napi::External<int>::New(env, &gConstructToken), Napi::External<void>::New(env, comm)});
}

}  // namespace baracuda::nccl
