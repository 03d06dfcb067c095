// Error messages and library access for the cudnn-sys bindings (declared in support.h).
#include "support.h"

namespace baracuda::cudnn {

int gConstructToken = 0;

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

const Symbols &Lib(Napi::Env env) {
  const LoadState &state = EnsureLoaded();
  if (!state.available) {
    throw Napi::Error::New(env, "cuDNN is not available (" + state.reason +
                                    "); call probe() for every path that was tried");
  }
  return state.sym;
}

}  // namespace baracuda::cudnn
