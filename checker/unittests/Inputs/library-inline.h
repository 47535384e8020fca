// A library header with function bodies, included from a system directory
// (TraversalScopeTest.cpp): the parent map limited to the user's code must not
// hold its statements.
#pragma once
namespace lib {
inline int twice(int x) { return x + x; }
} // namespace lib
