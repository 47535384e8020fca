// Mock of ATen/core/IListRef.h: the list reference that at::cat takes.
#pragma once
#include <c10/util/ArrayRef.h>
#include <initializer_list>
#include <vector>

namespace c10 {
template <typename T> class IListRef {
public:
  IListRef();
  IListRef(const std::vector<T> &list);
  IListRef(ArrayRef<T> list);
  IListRef(std::initializer_list<T> list);
  size_t size() const;
};
} // namespace c10
