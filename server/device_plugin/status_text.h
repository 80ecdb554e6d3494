// A Status's message is its text, then a trace of where it was passed on ("\n  at FILE:LINE"):
// logs and the kubelet get the first line only.
#pragma once

#include <string>

namespace rgpu::device_plugin {

inline std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace rgpu::device_plugin
