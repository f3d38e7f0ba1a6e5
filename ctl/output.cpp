// SPDX-License-Identifier: GPL-2.0
#include "output.h"

#include <algorithm>
#include <ostream>

namespace rdmactl {

std::string text_value(const json& v) {
    if (v.is_null())
        return "-";
    if (v.is_string())
        return v.get<std::string>();
    if (v.is_boolean())
        return v.get<bool>() ? "on" : "off";
    if (v.is_array()) {
        if (v.empty())
            return "none";
        std::string out;
        for (const auto& e : v) {
            if (!out.empty())
                out += ",";
            out += text_value(e);
        }
        return out;
    }
    return v.dump();
}

void print_table(std::ostream& os, const std::vector<Column>& columns,
                 const std::vector<json>& rows) {
    std::vector<std::vector<std::string>> cells;
    std::vector<size_t> width;
    for (const Column& c : columns)
        width.push_back(c.header.size());
    for (const json& row : rows) {
        std::vector<std::string> line;
        for (size_t i = 0; i < columns.size(); i++) {
            json v;
            for (const std::string& k : columns[i].keys) {
                if (row.contains(k)) {
                    v = row[k];
                    break;
                }
            }
            line.push_back(text_value(v));
            width[i] = std::max(width[i], line.back().size());
        }
        cells.push_back(std::move(line));
    }
    auto emit = [&](const std::vector<std::string>& line) {
        std::string out;
        for (size_t i = 0; i < line.size(); i++) {
            out += line[i];
            if (i + 1 < line.size())
                out += std::string(width[i] - line[i].size() + 2, ' ');
        }
        os << out << '\n';
    };
    std::vector<std::string> headers;
    for (const Column& c : columns)
        headers.push_back(c.header);
    emit(headers);
    for (const auto& line : cells)
        emit(line);
}

void print_kv(std::ostream& os, const json& obj, int indent) {
    size_t w = 0;
    for (auto it = obj.begin(); it != obj.end(); ++it)
        if (!it.value().is_object())
            w = std::max(w, it.key().size());
    std::string pad(static_cast<size_t>(indent), ' ');
    for (auto it = obj.begin(); it != obj.end(); ++it) {
        const json& v = it.value();
        if (v.is_object()) {
            os << pad << it.key() << ":\n";
            print_kv(os, v, indent + 2);
        } else if (v.is_array() && !v.empty() && v.front().is_object()) {
            for (const json& e : v) {
                os << pad << it.key() << ":\n";
                print_kv(os, e, indent + 2);
            }
        } else {
            os << pad << it.key() << std::string(w - it.key().size() + 2, ' ') << text_value(v)
               << '\n';
        }
    }
}

void print_json(std::ostream& os, const json& v, bool pretty) {
    os << (pretty ? v.dump(4) : v.dump()) << '\n';
}

} // namespace rdmactl
