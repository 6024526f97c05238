// The checkpoints of a job run whole on a worker (RunJob), passed on to the job's observer so that
// each continues the results' rows the store holds. The worker counts every checkpoint it sent as
// stored (its next carries the rows after it, JobCheckpoint.rows_from); when the store refused
// or failed one, the relay keeps that one's rows and puts them in front of the next one's, whose
// rows_from it moves back to the store's, so that the next checkpoint is stored whole and a
// resumption loses only the progress since it, as on the unit-by-unit path (where the master
// asks the observer what is stored). Owns nothing; used on the job's thread only.
#pragma once

#include "cosimo/master/master.h"
#include "cosimo/v1/checkpoint.pb.h"

namespace cosimo::orchestrator {

class CheckpointRelay {
 public:
  explicit CheckpointRelay(master::MasterObserver& observer) : observer_(observer) {}

  // Passes `checkpoint` (its rows from `rows_from` on) to the observer's OnCheckpoint, with the
  // rows of the checkpoints before it that were not stored in front when they continue the store.
  void Pass(v1::JobCheckpoint checkpoint);

 private:
  master::MasterObserver& observer_;
  // The rows (values, strings, their first row and text) of the checkpoints not stored since the
  // last one that was; none when has_pending_ is false.
  v1::JobCheckpoint pending_;
  bool has_pending_ = false;
};

}  // namespace cosimo::orchestrator
