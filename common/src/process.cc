#include "cosimo/common/process.h"

#include "absl/synchronization/mutex.h"

namespace cosimo {

void SetUpProcess() { absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore); }

}  // namespace cosimo
