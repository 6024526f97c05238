#include "cosimo/common/crash.h"

#include <cmath>
#include <sstream>

namespace cosimo {

std::string DescribeCrash(const v1::CrashReport& report, bool with_job) {
  std::ostringstream text;
  text << report.signal();
  if (!report.unit().empty()) text << " in unit '" << report.unit() << "'";
  if (std::isfinite(report.time())) text << " at t=" << report.time();
  if (with_job && !report.job_id().empty()) {
    text << " (job " << report.job_id();
    if (report.variant() >= 0) text << ", sweep variant " << report.variant();
    text << ")";
  }
  return text.str();
}

}  // namespace cosimo
