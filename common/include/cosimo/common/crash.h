// A worker's report of a fatal signal in a unit's code (v1::CrashReport, Hello.crash), in words.
#pragma once

#include <string>

#include "cosimo/v1/worker_service.pb.h"

namespace cosimo {

// "SIGSEGV in unit 'msd' at t=0.49 (job job-1f, sweep variant 3)": the parts the report has,
// the job and variant only `with_job`.
std::string DescribeCrash(const v1::CrashReport& report, bool with_job = true);

}  // namespace cosimo
