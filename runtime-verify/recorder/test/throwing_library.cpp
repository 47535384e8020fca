// A shared library that throws, as LibTorch's libraries do (TORCH_CHECK's c10::Error), for
// capture_throws_test: its throw expressions call __cxa_throw through the dynamic linker, which must find
// the executable's (the recorder's) first.
#include <stdexcept>
#include <string>

// Throws a std::runtime_error whose what() is message.
void throwFromLibrary(const std::string &message) { throw std::runtime_error(message); }

// Throws an int: an exception that is no std::exception.
void throwIntFromLibrary() { throw 7; }
