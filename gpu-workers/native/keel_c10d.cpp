// JNI bridge from dev.keel.gpu.collective to PyTorch's c10d: a TCPStore and a process group
// (Gloo, or NCCL when built with -DUSE_C10D_NCCL) that work in place on DJL's at::Tensor handles.
//
// Every entry point catches every C++ exception and rethrows it as a Java CollectiveException:
// an exception unwinding through a JNI frame would abort the JVM.

#include <jni.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <ATen/ATen.h>
#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#if defined(USE_C10D_NCCL)
#include <c10/cuda/CUDAFunctions.h>
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#define KEEL_JNI(name) Java_dev_keel_gpu_collective_C10dNccl_##name
#elif defined(USE_C10D_GLOO)
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#define KEEL_JNI(name) Java_dev_keel_gpu_collective_C10d_##name
#else
#error "build with -DUSE_C10D_GLOO or -DUSE_C10D_NCCL"
#endif

// The store's entry points belong to C10d; a GPU host's own build (gpu-workers/gpu-check/) puts them
// into the NCCL library, because it has no Gloo headers to build the other one with.
#define KEEL_STORE_JNI(name) Java_dev_keel_gpu_collective_C10d_##name

namespace {

using Clock = std::chrono::steady_clock;
using WorkPtr = c10::intrusive_ptr<c10d::Work>;

struct Group {
  c10::intrusive_ptr<c10d::Backend> backend;
  // "rank 0 of 2, timeout 5000 ms": c10d's messages (e.g. "Application timeout caused pair
  // closure") rarely say which group or which timeout.
  std::string context;
  // The benchmark's own tensor, kept between calls so that it is as warm in cache as a DJL array.
  at::Tensor benchTensor;
  // Set when a call returned while some of its ops were still queued or running.
  std::atomic<bool> abandoned{false};
};

void throwJava(JNIEnv* env, const std::string& message) {
  if (env->ExceptionCheck()) {
    return;
  }
  jclass cls = env->FindClass("dev/keel/gpu/collective/CollectiveException");
  if (cls == nullptr) {
    env->ExceptionClear();
    cls = env->FindClass("java/lang/RuntimeException");
  }
  env->ThrowNew(cls, message.c_str());
}

// c10::Error::what() appends a multi-line C++ stack; the Java stack is what callers need.
std::string messageOf(const c10::Error& e) {
  std::string m = e.what_without_backtrace();
  auto end = m.find_last_not_of(" \n");
  return end == std::string::npos ? m : m.substr(0, end + 1);
}

// what() names the operation for the message; it runs only on failure, off the hot path.
template <typename R, typename W, typename F>
R guarded(JNIEnv* env, W&& what, R onError, F&& body) {
  try {
    return body();
  } catch (const c10::Error& e) {
    throwJava(env, what() + ": " + messageOf(e));
  } catch (const std::exception& e) {
    throwJava(env, what() + ": " + e.what());
  } catch (...) {
    throwJava(env, what() + ": unknown C++ exception");
  }
  return onError;
}

std::string str(JNIEnv* env, jstring s) {
  const char* chars = env->GetStringUTFChars(s, nullptr);
  std::string out(chars);
  env->ReleaseStringUTFChars(s, chars);
  return out;
}

Group* group(jlong handle) {
  return reinterpret_cast<Group*>(handle);
}

jlong newGroup(c10::intrusive_ptr<c10d::Backend> backend, int rank, int size, jlong timeoutMs) {
  auto* g = new Group();
  g->backend = std::move(backend);
  g->context = "rank " + std::to_string(rank) + " of " + std::to_string(size) + ", timeout " +
               std::to_string(timeoutMs) + " ms";
  return reinterpret_cast<jlong>(g);
}

std::string describeCall(const std::string& op, JNIEnv* env, jlongArray handles, jlong handle) {
  return op + " of " + std::to_string(env->GetArrayLength(handles)) + " tensors (" +
         group(handle)->context + ")";
}

// DJL's PtNDArray handle is a pointer to an at::Tensor; copying the at::Tensor shares its storage.
std::vector<at::Tensor> tensors(JNIEnv* env, jlongArray handles) {
  jsize n = env->GetArrayLength(handles);
  std::vector<jlong> raw(n);
  env->GetLongArrayRegion(handles, 0, n, raw.data());
  std::vector<at::Tensor> out;
  out.reserve(n);
  for (jsize i = 0; i < n; i++) {
    const at::Tensor& t = *reinterpret_cast<at::Tensor*>(raw[i]);
    TORCH_CHECK(t.is_contiguous(), "tensor ", i, " is not contiguous (shape ", t.sizes(), ")");
    out.push_back(t);
  }
  return out;
}

// Rethrows the first failure at once. The ops after it share the failed peer, and each would wait
// out its own timeout (n ops behind a hung peer: n times the timeout); they still hold references to
// their tensors, so leaving them to fail on Gloo's threads cannot touch freed memory.
// done(i) runs as soon as op i has finished, while later ops may still be running.
void waitAll(Group& g, std::vector<WorkPtr>& works, const std::function<void(size_t)>& done = nullptr) {
  for (size_t i = 0; i < works.size(); i++) {
    try {
      works[i]->wait();
      if (done) {
        done(i);
      }
    } catch (...) {
      for (size_t j = i + 1; j < works.size(); j++) {
        if (!works[j]->isCompleted()) {
          g.abandoned = true;
        }
      }
      throw;
    }
  }
#if defined(USE_C10D_NCCL)
  c10::cuda::device_synchronize();
#endif
}

WorkPtr allreduceOne(c10d::Backend& pg, at::Tensor t) {
  std::vector<at::Tensor> one{std::move(t)};
  return pg.allreduce(one, c10d::AllreduceOptions{});
}

// Small tensors of one dtype are packed into a flat buffer of at most bucketBytes (one collective
// per bucket instead of one per tensor: latency dominates below a few hundred KiB); a tensor of
// bucketBytes or more goes alone and in place, since copying it would only add memory traffic.
void allreduceBucketed(Group& g, const std::vector<at::Tensor>& ts, int64_t bucketBytes) {
  c10d::Backend& pg = *g.backend;
  struct Bucket {
    at::Tensor flat;
    std::vector<at::Tensor> members;
    size_t work;
  };
  std::vector<WorkPtr> works;
  std::vector<Bucket> buckets;
  std::vector<at::Tensor> pending;
  int64_t pendingBytes = 0;
  auto flush = [&]() {
    if (pending.size() == 1) {
      works.push_back(allreduceOne(pg, pending[0]));
    } else if (pending.size() > 1) {
      std::vector<at::Tensor> flatViews;
      flatViews.reserve(pending.size());
      for (auto& t : pending) {
        flatViews.push_back(t.view(-1));
      }
      Bucket b{at::cat(flatViews), std::move(pending), works.size()};
      works.push_back(allreduceOne(pg, b.flat));
      buckets.push_back(std::move(b));
    }
    pending.clear();
    pendingBytes = 0;
  };
  for (const auto& t : ts) {
    int64_t bytes = t.numel() * static_cast<int64_t>(t.element_size());
    if (bytes >= bucketBytes) {
      works.push_back(allreduceOne(pg, t));
      continue;
    }
    if (!pending.empty() && (pending[0].scalar_type() != t.scalar_type() ||
                             pending[0].device() != t.device() || pendingBytes + bytes > bucketBytes)) {
      flush();
    }
    pending.push_back(t);
    pendingBytes += bytes;
  }
  flush();
  // Buckets are in launch order, like works: each is copied back while later ones still reduce.
  size_t next = 0;
  waitAll(g, works, [&](size_t i) {
    if (next < buckets.size() && buckets[next].work == i) {
      Bucket& b = buckets[next++];
      int64_t offset = 0;
      for (auto& m : b.members) {
        m.view(-1).copy_(b.flat.narrow(0, offset, m.numel()));
        offset += m.numel();
      }
      b.flat = at::Tensor();
    }
  });
}

jlongArray toJava(JNIEnv* env, const std::vector<jlong>& values) {
  jlongArray out = env->NewLongArray(static_cast<jsize>(values.size()));
  if (out != nullptr) {
    env->SetLongArrayRegion(out, 0, static_cast<jsize>(values.size()), values.data());
  }
  return out;
}

}  // namespace

extern "C" {

#if defined(USE_C10D_GLOO) || defined(KEEL_C10D_STORE)

JNIEXPORT jlong JNICALL KEEL_STORE_JNI(storeCreate)(JNIEnv* env, jclass, jstring host, jint port, jint worldSize,
                                             jboolean server, jlong timeoutMs) {
  std::string h = str(env, host);
  std::string what = std::string("TCPStore ") + (server ? "server on " : "client of ") + h + ":" +
                     std::to_string(port);
  return guarded<jlong>(env, [&]() { return what; }, 0, [&]() {
    c10d::TCPStoreOptions o;
    o.port = static_cast<std::uint16_t>(port);
    o.isServer = server;
    o.numWorkers = static_cast<std::size_t>(worldSize);
    // The server must return at once: with port 0 the caller still has to tell the others its port.
    o.waitWorkers = false;
    o.timeout = std::chrono::milliseconds(timeoutMs);
    auto* s = new c10::intrusive_ptr<c10d::TCPStore>(c10::make_intrusive<c10d::TCPStore>(h, o));
    return reinterpret_cast<jlong>(s);
  });
}

JNIEXPORT jint JNICALL KEEL_STORE_JNI(storePort)(JNIEnv*, jclass, jlong store) {
  return (*reinterpret_cast<c10::intrusive_ptr<c10d::TCPStore>*>(store))->getPort();
}

JNIEXPORT void JNICALL KEEL_STORE_JNI(storeSet)(JNIEnv* env, jclass, jlong store, jstring key, jbyteArray value) {
  std::string k = str(env, key);
  jsize n = env->GetArrayLength(value);
  std::vector<uint8_t> bytes(n);
  env->GetByteArrayRegion(value, 0, n, reinterpret_cast<jbyte*>(bytes.data()));
  guarded<int>(env, [&]() { return "store set('" + k + "')"; }, 0, [&]() {
    (*reinterpret_cast<c10::intrusive_ptr<c10d::TCPStore>*>(store))->set(k, bytes);
    return 0;
  });
}

JNIEXPORT jbyteArray JNICALL KEEL_STORE_JNI(storeGet)(JNIEnv* env, jclass, jlong store, jstring key) {
  std::string k = str(env, key);
  std::vector<uint8_t> bytes;
  bool ok = guarded<bool>(env, [&]() { return "store get('" + k + "')"; }, false, [&]() {
    bytes = (*reinterpret_cast<c10::intrusive_ptr<c10d::TCPStore>*>(store))->get(k);
    return true;
  });
  if (!ok) {
    return nullptr;
  }
  jbyteArray out = env->NewByteArray(static_cast<jsize>(bytes.size()));
  if (out != nullptr) {
    env->SetByteArrayRegion(out, 0, static_cast<jsize>(bytes.size()), reinterpret_cast<const jbyte*>(bytes.data()));
  }
  return out;
}

JNIEXPORT jlong JNICALL KEEL_STORE_JNI(storeAdd)(JNIEnv* env, jclass, jlong store, jstring key, jlong delta) {
  std::string k = str(env, key);
  return guarded<jlong>(env, [&]() { return "store add('" + k + "')"; }, 0, [&]() {
    return static_cast<jlong>((*reinterpret_cast<c10::intrusive_ptr<c10d::TCPStore>*>(store))->add(k, delta));
  });
}

JNIEXPORT void JNICALL KEEL_STORE_JNI(storeFree)(JNIEnv* env, jclass, jlong store) {
  guarded<int>(env, [&]() { return std::string("closing the TCPStore"); }, 0, [&]() {
    delete reinterpret_cast<c10::intrusive_ptr<c10d::TCPStore>*>(store);
    return 0;
  });
}

#endif

#if defined(USE_C10D_GLOO)

JNIEXPORT jlong JNICALL KEEL_JNI(createGroup)(JNIEnv* env, jclass, jlong store, jint rank, jint size, jstring host,
                                             jlong timeoutMs) {
  std::string h = str(env, host);
  std::string what = "joining the Gloo process group as rank " + std::to_string(rank) + " of " +
                     std::to_string(size) + " on " + h + " (timeout " + std::to_string(timeoutMs) + " ms)";
  return guarded<jlong>(env, [&]() { return what; }, 0, [&]() {
    auto opts = c10d::ProcessGroupGloo::Options::create(std::chrono::milliseconds(timeoutMs));
    opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(h));
    const auto& s = *reinterpret_cast<c10::intrusive_ptr<c10d::TCPStore>*>(store);
    auto pg = c10::make_intrusive<c10d::ProcessGroupGloo>(s, rank, size, opts);
    return newGroup(pg, rank, size, timeoutMs);
  });
}

// The bound for collectives on this machine: one process copying the same bytes.
JNIEXPORT jlongArray JNICALL KEEL_JNI(benchMemcpy)(JNIEnv* env, jclass, jlong bytes, jint iterations) {
  std::vector<jlong> nanos;
  bool ok = guarded<bool>(env, [&]() { return std::string("memcpy benchmark"); }, false, [&]() {
    std::vector<char> src(bytes, 1);
    std::vector<char> dst(bytes, 0);
    std::memcpy(dst.data(), src.data(), bytes);
    for (jint i = 0; i < iterations; i++) {
      auto t0 = Clock::now();
      std::memcpy(dst.data(), src.data(), bytes);
      nanos.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count());
      src[i % bytes] = dst[(i * 7919) % bytes];  // keeps the copies observable
    }
    return true;
  });
  return ok ? toJava(env, nanos) : nullptr;
}

#else  // USE_C10D_NCCL

JNIEXPORT jlong JNICALL KEEL_JNI(createGroup)(JNIEnv* env, jclass, jlong store, jint rank, jint size, jstring,
                                             jlong timeoutMs) {
  std::string what = "creating the NCCL process group as rank " + std::to_string(rank) + " of " +
                     std::to_string(size) + " (timeout " + std::to_string(timeoutMs) + " ms)";
  return guarded<jlong>(env, [&]() { return what; }, 0, [&]() {
    auto opts = c10d::ProcessGroupNCCL::Options::create();
    opts->timeout = std::chrono::milliseconds(timeoutMs);
    const auto& s = *reinterpret_cast<c10::intrusive_ptr<c10d::TCPStore>*>(store);
    auto pg = c10::make_intrusive<c10d::ProcessGroupNCCL>(s, rank, size, opts);
    return newGroup(pg, rank, size, timeoutMs);
  });
}

#endif

JNIEXPORT void JNICALL KEEL_JNI(freeGroup)(JNIEnv* env, jclass, jlong handle) {
  guarded<int>(env, [&]() { return std::string("closing the process group"); }, 0, [&]() {
    Group* g = group(handle);
    if (g->abandoned) {
      // The destructor drains the queue, one timeout per abandoned op: not on the caller's thread.
      std::thread([g]() { delete g; }).detach();
    } else {
      delete g;
    }
    return 0;
  });
}

JNIEXPORT void JNICALL KEEL_JNI(allreduce)(JNIEnv* env, jclass, jlong handle, jlongArray handles, jlong bucketBytes) {
  auto what = [&]() { return describeCall("allreduce", env, handles, handle); };
  guarded<int>(env, what, 0, [&]() {
    auto ts = tensors(env, handles);
    Group& g = *group(handle);
    if (bucketBytes > 0) {
      allreduceBucketed(g, ts, bucketBytes);
      return 0;
    }
    std::vector<WorkPtr> works;
    works.reserve(ts.size());
    for (auto& t : ts) {
      works.push_back(allreduceOne(*g.backend, t));
    }
    waitAll(g, works);
    return 0;
  });
}

JNIEXPORT void JNICALL KEEL_JNI(broadcast)(JNIEnv* env, jclass, jlong handle, jlongArray handles, jint root) {
  auto what = [&]() { return describeCall("broadcast from rank " + std::to_string(root), env, handles, handle); };
  guarded<int>(env, what, 0, [&]() {
    auto ts = tensors(env, handles);
    Group& g = *group(handle);
    c10d::BroadcastOptions opts;
    opts.rootRank = root;
    std::vector<WorkPtr> works;
    for (auto& t : ts) {
      std::vector<at::Tensor> one{t};
      works.push_back(g.backend->broadcast(one, opts));
    }
    waitAll(g, works);
    return 0;
  });
}

JNIEXPORT void JNICALL KEEL_JNI(barrier)(JNIEnv* env, jclass, jlong handle) {
  guarded<int>(env, [&]() { return "barrier (" + group(handle)->context + ")"; }, 0, [&]() {
    Group& g = *group(handle);
    std::vector<WorkPtr> works{g.backend->barrier(c10d::BarrierOptions{})};
    waitAll(g, works);
    return 0;
  });
}

// Plain c10d without DJL: the tensor is allocated here, and each iteration is timed natively.
JNIEXPORT jlongArray JNICALL KEEL_JNI(benchAllreduce)(JNIEnv* env, jclass, jlong handle, jlong bytes,
                                                      jint iterations) {
  std::vector<jlong> nanos;
  auto what = [&]() { return "allreduce benchmark (" + group(handle)->context + ")"; };
  bool ok = guarded<bool>(env, what, false, [&]() {
    auto options = at::TensorOptions().dtype(at::kFloat);
#if defined(USE_C10D_NCCL)
    options = options.device(at::kCUDA, c10::cuda::current_device());
#endif
    Group& g = *group(handle);
    if (!g.benchTensor.defined() || g.benchTensor.numel() != bytes / 4) {
      g.benchTensor = at::Tensor();
      g.benchTensor = at::zeros({bytes / 4}, options);
    }
    at::Tensor& t = g.benchTensor;
    for (jint i = 0; i < iterations; i++) {
      auto t0 = Clock::now();
      std::vector<WorkPtr> works{allreduceOne(*g.backend, t)};
      waitAll(g, works);
      nanos.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count());
    }
    return true;
  });
  return ok ? toJava(env, nanos) : nullptr;
}

// Rank r contributes (r + 1) * [0, 1, ..., n): every element of the sum is known exactly (integers
// far below 2^24), so one maximum says whether the ranks' data met, in the right places.
JNIEXPORT jdouble JNICALL KEEL_JNI(checkAllreduce)(JNIEnv* env, jclass, jlong handle, jint rank, jint size,
                                                  jlong elements) {
  auto what = [&]() { return "allreduce check of " + std::to_string(elements) + " floats (" + group(handle)->context + ")"; };
  return guarded<jdouble>(env, what, -1.0, [&]() {
    auto options = at::TensorOptions().dtype(at::kFloat);
#if defined(USE_C10D_NCCL)
    options = options.device(at::kCUDA, c10::cuda::current_device());
#endif
    at::Tensor base = at::arange(elements, options);
    at::Tensor t = base * static_cast<double>(rank + 1);
    Group& g = *group(handle);
    std::vector<WorkPtr> works{allreduceOne(*g.backend, t)};
    waitAll(g, works);
    at::Tensor expected = base * (static_cast<double>(size) * (size + 1) / 2.0);
    return static_cast<jdouble>((t - expected).abs().max().item<double>());
  });
}

}  // extern "C"
