// The recorder's test of runs that crash (recorder/test/check-crashes.sh): one sync on the marked line, then
// the run ends as argv[1] says:
//   exit                a normal return from main (the control: no "ended")
//   static-destructor   an exception escaping the destructor of a static object made in main (destroyed
//                       before the recorder's exit handler runs): std::terminate
//   early-static-destructor
//                       the same from a static object made before main (destroyed after it, most likely:
//                       the recorder writes again, marked "ended")
//   throw               an exception escaping main: std::terminate
//   abort               abort(): SIGABRT
//   segv                a null pointer written to: SIGSEGV
// It lives in a samples/ folder of its own so that, with TORCH_SYNC_SOURCE_ROOT=recorder/test, the recorder
// attributes the sync to this file's line. Not a sample of samples/: the checker's comparison never sees it.
#include <torch/torch.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace {

volatile double hostSink = 0;

// Throws from its destructor when armed: destroyed after main returns, it ends the run in std::terminate.
struct ThrowsAtExit {
  bool armed = false;
  ~ThrowsAtExit() noexcept(false) {
    if (armed)
      throw std::runtime_error("thrown from a static destructor");
  }
};
ThrowsAtExit earlyThrowsAtExit;

void syncOnce() {
  torch::Tensor value = torch::ones({1}, torch::kCUDA);
  hostSink = value.item<double>(); // SYNC: the one sync the test expects
}

} // namespace

int main(int argc, char **argv) {
  const char *how = argc > 1 ? argv[1] : "exit";
  syncOnce();
  if (std::strcmp(how, "static-destructor") == 0) {
    static ThrowsAtExit lateThrowsAtExit;
    lateThrowsAtExit.armed = true;
  } else if (std::strcmp(how, "early-static-destructor") == 0)
    earlyThrowsAtExit.armed = true;
  else if (std::strcmp(how, "throw") == 0)
    throw std::runtime_error("thrown from main");
  else if (std::strcmp(how, "abort") == 0)
    std::abort();
  else if (std::strcmp(how, "segv") == 0) {
    int *volatile null = nullptr; // read at run time: a real fault, not a trap the compiler puts in
    *null = 1;
  }
  return 0;
}
