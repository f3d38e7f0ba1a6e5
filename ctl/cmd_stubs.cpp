#include "cli.h"
namespace rdmactl {
void register_limits(CLI::App&, Context&) {}
void register_dcqcn(CLI::App&, Context&) {}
void register_qos(CLI::App&, Context&) {}
void register_gid(CLI::App&, Context&) {}
void register_stats(CLI::App&, Context&) {}
void register_config(CLI::App&, Context&) {}
void register_monitor(CLI::App&, Context&) {}
}
