// Whole rows through a store::Statement in one call: BindRow binds values to
// parameters 1..N, ReadRow reads columns 0..N-1 into fields, each by its C++
// type (an optional is NULL when absent, a bool is 0 or 1). For the code that
// owns a table and moves its rows field by field.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

#include "store/database.h"

namespace hwrec::store {

namespace row_values_detail {

inline void Read(const Statement& s, int i, std::string* out) { s.AssignText(i, out); }
inline void Read(const Statement& s, int i, std::optional<std::string>* out) {
  s.AssignOptionalText(i, out);
}
inline void Read(const Statement& s, int i, double* out) { *out = s.Double(i); }
inline void Read(const Statement& s, int i, std::optional<double>* out) {
  *out = s.OptionalDouble(i);
}
inline void Read(const Statement& s, int i, bool* out) { *out = s.Int64(i) != 0; }
template <typename T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
void Read(const Statement& s, int i, T* out) {
  *out = static_cast<T>(s.Int64(i));
}
inline void Read(const Statement& s, int i, std::optional<std::int64_t>* out) {
  *out = s.OptionalInt64(i);
}

template <typename T>
void Bind(Statement& s, int i, const T& value) {
  s.Bind(i, value);
}

}  // namespace row_values_detail

// Binds `values` to parameters first, first + 1, … of `statement`.
template <typename... Values>
void BindRowFrom(Statement& statement, int first, const Values&... values) {
  int i = first;
  (row_values_detail::Bind(statement, i++, values), ...);
}

// Binds `values` to parameters 1, 2, … of `statement`.
template <typename... Values>
void BindRow(Statement& statement, const Values&... values) {
  BindRowFrom(statement, 1, values...);
}

// Reads columns first, first + 1, … of the current row into `fields`.
template <typename... Fields>
void ReadRowFrom(const Statement& statement, int first, Fields*... fields) {
  int i = first;
  (row_values_detail::Read(statement, i++, fields), ...);
}

// Reads columns 0, 1, … of the current row into `fields`.
template <typename... Fields>
void ReadRow(const Statement& statement, Fields*... fields) {
  ReadRowFrom(statement, 0, fields...);
}

}  // namespace hwrec::store
