//===- Options.h - libtile and tilec: the compile options ------*- C++ -*-===//
//
// The compile options, from their one definition (tile/Options.def): a
// struct with an optional field per option (unset: the kernel's @hints,
// then the default), their text ("num_warps=8,warp_specialize=on"), parsing
// and checking by name, and the list of options with their defaults and
// ranges. Header-only, so that the compiler, the runtime, the C API and the
// tools share it without a library of its own.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_OPTIONS_H
#define TILE_OPTIONS_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#define TILE_OPTION_HINT (1u << 0)
#define TILE_OPTION_POW2 (1u << 1)
#define TILE_OPTION_ZERO (1u << 2)

namespace tile {

/// One option of Options.def.
struct OptionInfo {
  const char *key;       // "num_warps"
  bool isBool;           // else unsigned
  unsigned defaultValue; // 0 or 1 for a bool
  unsigned min, max;     // an unsigned option's range
  unsigned flags;        // TILE_OPTION_HINT | ...
  const char *doc;
};

namespace detail {
template <typename T> struct OptionKind;
template <> struct OptionKind<bool> {
  static constexpr bool isBool = true;
};
template <> struct OptionKind<unsigned> {
  static constexpr bool isBool = false;
};
} // namespace detail

/// Every option, in the order of Options.def; `count` of them.
inline const OptionInfo *optionInfos(size_t &count) {
  static const OptionInfo infos[] = {
#define TILE_OPTION(FIELD, KEY, TYPE, DEFAULT, MIN, MAX, FLAGS, DOC)           \
  {#KEY,   detail::OptionKind<TYPE>::isBool,                                   \
   unsigned(DEFAULT), unsigned(MIN), unsigned(MAX), unsigned(FLAGS), DOC},
#include "tile/Options.def"
  };
  count = sizeof(infos) / sizeof(infos[0]);
  return infos;
}

/// The option called `key`, or null.
inline const OptionInfo *lookupOption(std::string_view key) {
  size_t count;
  const OptionInfo *infos = optionInfos(count);
  for (size_t i = 0; i < count; ++i)
    if (key == infos[i].key)
      return &infos[i];
  return nullptr;
}

/// Every option's key, as "a, b, ... and z", for messages.
inline std::string listOptions() {
  size_t count;
  const OptionInfo *infos = optionInfos(count);
  std::string list;
  for (size_t i = 0; i < count; ++i)
    list += std::string(i == 0 ? "" : i + 1 == count ? " and " : ", ") +
            infos[i].key;
  return list;
}

/// An option's command-line flag and pipeline-option name: its key with
/// '-' for '_' ("num-warps"), made once per option; `key` is an option's
/// key (null for any other).
inline const char *optionFlag(std::string_view key) {
  size_t count;
  const OptionInfo *infos = optionInfos(count);
  static const std::vector<std::string> flags = [&] {
    std::vector<std::string> made;
    for (size_t i = 0; i < count; ++i) {
      made.emplace_back(infos[i].key);
      for (char &c : made.back())
        if (c == '_')
          c = '-';
    }
    return made;
  }();
  const OptionInfo *info = lookupOption(key);
  return info ? flags[info - infos].c_str() : nullptr;
}

/// Why `value` is not a valid value of option `info`; empty when it is.
inline std::string checkOptionValue(const OptionInfo &info, unsigned value) {
  if (info.isBool)
    return value <= 1 ? "" : std::string(info.key) + " must be on or off";
  bool zero = (info.flags & TILE_OPTION_ZERO) && value == 0;
  bool pow2 = !(info.flags & TILE_OPTION_POW2) || (value & (value - 1)) == 0;
  if (zero || (value >= info.min && value <= info.max && pow2))
    return "";
  return std::string(info.key) + " must be " +
         ((info.flags & TILE_OPTION_ZERO) ? "0 or " : "") +
         ((info.flags & TILE_OPTION_POW2) ? "a power of two" : "an integer") +
         " from " + std::to_string(info.min) + " to " +
         std::to_string(info.max) + ", got " + std::to_string(value);
}

/// Reads an option's value from text: "on"/"off", "true"/"false", "1"/"0"
/// for a bool, decimal digits for an unsigned. Sets `error` when it is not
/// one, or out of range.
inline std::optional<unsigned> parseOptionValue(const OptionInfo &info,
                                                std::string_view text,
                                                std::string &error) {
  std::optional<unsigned> value;
  if (info.isBool) {
    if (text == "on" || text == "true" || text == "True" || text == "1")
      value = 1;
    else if (text == "off" || text == "false" || text == "False" ||
             text == "0")
      value = 0;
    else
      error = std::string(info.key) + " must be on or off, got '" +
              std::string(text) + "'";
  } else if (!text.empty() && text.size() <= 9 &&
             text.find_first_not_of("0123456789") == std::string_view::npos) {
    value = unsigned(std::stoul(std::string(text)));
  } else {
    error = std::string(info.key) + " must be an integer, got '" +
            std::string(text) + "'";
  }
  if (value) {
    error = checkOptionValue(info, *value);
    if (!error.empty())
      value.reset();
  }
  return value;
}

/// The compile options: each unset, or a value the caller gives, which wins
/// over the kernel's @hints (for the options it may give) and the default.
struct Options {
#define TILE_OPTION(FIELD, KEY, TYPE, DEFAULT, MIN, MAX, FLAGS, DOC)           \
  std::optional<TYPE> FIELD;
#include "tile/Options.def"

  /// Calls `f(info, optionalValue)` for each option, in Options.def's order.
  template <typename F> void forEach(F &&f) {
    size_t count, i = 0;
    const OptionInfo *infos = optionInfos(count);
    (void)count;
#define TILE_OPTION(FIELD, KEY, TYPE, DEFAULT, MIN, MAX, FLAGS, DOC)           \
  f(infos[i++], FIELD);
#include "tile/Options.def"
  }
  template <typename F> void forEach(F &&f) const {
    const_cast<Options *>(this)->forEach(
        [&](const OptionInfo &info, const auto &value) { f(info, value); });
  }

  /// The options set, "num_warps=8,warp_specialize=on", in Options.def's
  /// order; "" when none is.
  std::string text() const {
    std::string out;
    forEach([&](const OptionInfo &info, const auto &value) {
      if (!value)
        return;
      out += std::string(out.empty() ? "" : ",") + info.key + "=" +
             (info.isBool ? (*value ? "on" : "off")
                          : std::to_string(unsigned(*value)));
    });
    return out;
  }

  /// Every option for a cache or tuning key, "num_warps=?,loop_split=1,...":
  /// a value given; an option a kernel may give in its @hints, unset, as
  /// "?" (the source, hints included, is in the key too); any other at its
  /// default, so that giving the default keys as leaving it unset.
  std::string keyText() const {
    std::string out;
    forEach([&](const OptionInfo &info, const auto &value) {
      out += std::string(out.empty() ? "" : ",") + info.key + "=" +
             (value                              ? std::to_string(unsigned(*value))
              : (info.flags & TILE_OPTION_HINT) ? std::string("?")
                                                : std::to_string(info.defaultValue));
    });
    return out;
  }

  /// Sets option `key` from text; an error naming the option (or the
  /// options there are) when it is not one, "" on success.
  std::string set(std::string_view key, std::string_view text) {
    const OptionInfo *info = lookupOption(key);
    if (!info)
      return "unknown option '" + std::string(key) + "' (the options are " +
             listOptions() + ")";
    std::string error;
    std::optional<unsigned> value = parseOptionValue(*info, text, error);
    if (!value)
      return error;
    forEach([&](const OptionInfo &i, auto &field) {
      if (&i == info)
        field = static_cast<typename std::decay_t<decltype(field)>::value_type>(
            *value);
    });
    return "";
  }

  /// Sets every "key=value" of comma-separated `text` ("" sets none); the
  /// first error, or "".
  std::string parse(std::string_view text) {
    while (!text.empty()) {
      size_t comma = text.find(',');
      std::string_view item = text.substr(0, comma);
      text = comma == std::string_view::npos ? std::string_view()
                                             : text.substr(comma + 1);
      while (!item.empty() && item.front() == ' ')
        item.remove_prefix(1);
      while (!item.empty() && item.back() == ' ')
        item.remove_suffix(1);
      if (item.empty())
        continue;
      size_t eq = item.find('=');
      if (eq == std::string_view::npos)
        return "expected NAME=VALUE, got '" + std::string(item) + "'";
      if (std::string error = set(item.substr(0, eq), item.substr(eq + 1));
          !error.empty())
        return error;
    }
    return "";
  }

  /// The options `over` sets replace these.
  void merge(const Options &over) {
#define TILE_OPTION(FIELD, KEY, TYPE, DEFAULT, MIN, MAX, FLAGS, DOC)           \
  if (over.FIELD)                                                              \
    FIELD = over.FIELD;
#include "tile/Options.def"
  }

  /// Why the options do not go together (tile_refill_after_read needs
  /// tile_stages=1), or why one is out of range; "" when they are fine.
  std::string check() const {
    std::string error;
    forEach([&](const OptionInfo &info, const auto &value) {
      if (error.empty() && value)
        error = checkOptionValue(info, unsigned(*value));
    });
    if (error.empty() && tileRefillAfterRead.value_or(false) &&
        tileStages.value_or(2) != 1)
      error = "tile_refill_after_read needs tile_stages=1 (it refills a "
              "one-slot ring), got tile_stages=" +
              std::to_string(tileStages.value_or(2));
    return error;
  }

  bool operator==(const Options &o) const {
    bool same = true;
#define TILE_OPTION(FIELD, KEY, TYPE, DEFAULT, MIN, MAX, FLAGS, DOC)           \
  same = same && FIELD == o.FIELD;
#include "tile/Options.def"
    return same;
  }
  bool operator!=(const Options &o) const { return !(*this == o); }
};

} // namespace tile

#endif // TILE_OPTIONS_H
