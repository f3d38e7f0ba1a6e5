// SPDX-License-Identifier: GPL-2.0
#include "json_pos.h"

#include "output.h"

#include <cstring>

namespace rdmactl {

TextPos text_pos(const std::string& text, size_t offset) {
    TextPos p;
    size_t end = offset < text.size() ? offset : text.size();
    for (size_t i = 0; i < end; i++) {
        if (text[i] == '\n') {
            p.line++;
            p.column = 1;
        } else {
            p.column++;
        }
    }
    return p;
}

namespace {

// A recursive walk over the JSON grammar (RFC 8259) that only records
// where values start; it stops at the first byte it does not expect.
class Walker {
public:
    Walker(const std::string& t, std::map<std::string, size_t>& out) : t_(t), out_(out) {}

    bool value(const std::string& path) {
        ws();
        if (i_ >= t_.size())
            return false;
        switch (t_[i_]) {
        case '{':
            return object(path);
        case '[':
            return array(path);
        case '"':
            return string(nullptr);
        default:
            return scalar();
        }
    }

private:
    void ws() {
        while (i_ < t_.size() && std::strchr(" \t\r\n", t_[i_]) && t_[i_] != '\0')
            i_++;
    }

    bool scalar() {
        size_t start = i_;
        while (i_ < t_.size() && !std::strchr(",]} \t\r\n", t_[i_]))
            i_++;
        return i_ > start;
    }

    // Skips a string; its decoded text goes to @p decoded when asked.
    bool string(std::string* decoded) {
        size_t start = i_++;
        while (i_ < t_.size() && t_[i_] != '"')
            i_ += t_[i_] == '\\' ? 2 : 1;
        if (i_ >= t_.size())
            return false;
        i_++;
        if (decoded) {
            try {
                *decoded = json::parse(t_.substr(start, i_ - start)).get<std::string>();
            } catch (const json::exception&) {
                return false;
            }
        }
        return true;
    }

    bool object(const std::string& path) {
        i_++;
        ws();
        if (i_ < t_.size() && t_[i_] == '}') {
            i_++;
            return true;
        }
        for (;;) {
            ws();
            if (i_ >= t_.size() || t_[i_] != '"')
                return false;
            size_t key_at = i_;
            std::string key;
            if (!string(&key))
                return false;
            std::string kpath = path.empty() ? key : path + "." + key;
            out_.emplace(kpath, key_at);
            ws();
            if (i_ >= t_.size() || t_[i_] != ':')
                return false;
            i_++;
            if (!value(kpath))
                return false;
            if (!next('}'))
                return i_ <= t_.size() && i_ > 0 && t_[i_ - 1] == '}';
        }
    }

    bool array(const std::string& path) {
        i_++;
        ws();
        if (i_ < t_.size() && t_[i_] == ']') {
            i_++;
            return true;
        }
        for (size_t n = 0;; n++) {
            ws();
            std::string epath = path + "[" + std::to_string(n) + "]";
            out_.emplace(epath, i_);
            if (!value(epath))
                return false;
            if (!next(']'))
                return i_ <= t_.size() && i_ > 0 && t_[i_ - 1] == ']';
        }
    }

    // After a member or element: true on ',' (more follow), false on
    // @p close or anything else (the caller tells them apart).
    bool next(char close) {
        ws();
        if (i_ < t_.size() && t_[i_] == ',') {
            i_++;
            return true;
        }
        if (i_ < t_.size() && t_[i_] == close)
            i_++;
        return false;
    }

    const std::string& t_;
    std::map<std::string, size_t>& out_;
    size_t i_ = 0;
};

} // namespace

std::map<std::string, size_t> json_key_offsets(const std::string& text) {
    std::map<std::string, size_t> out;
    Walker w(text, out);
    size_t root = text.find_first_not_of(" \t\r\n");
    out.emplace("", root == std::string::npos ? 0 : root);
    w.value("");
    return out;
}

} // namespace rdmactl
