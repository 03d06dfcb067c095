#include <napi.h>
Napi::Object Init(Napi::Env env, Napi::Object exports) { exports.Set("hello", Napi::String::New(env, "hi")); return exports; }
NODE_API_MODULE(baracuda_driver, Init)
