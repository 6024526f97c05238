/* The part of a test FMU that does not depend on the FMI version: the model's variables and
 * equations. fmi2_framework.c and fmi3_framework.c implement the FMI functions on top of it
 * (like the Modelica Association's Reference FMUs); each model (msd.c, bouncing_ball.c) fills
 * in the functions below.
 *
 * Variables live in per-type arrays indexed by "local" value reference: reals r[k] (FMI 2 Real
 * vr k, FMI 3 Float64 vr k), integers i[k] (FMI 2 Integer vr k, FMI 3 Int32 vr 100 + k),
 * Booleans b[k] (vr k / 200 + k) and one string (vr 0 / 300); FMI 3 only: Int64 i64[k] (vr
 * 400 + k) and UInt64 u64[k] (vr 500 + k). FMI 3 vr 999 is the independent variable time. */
#ifndef COSIMO_TESTS_FMUS_MODEL_CORE_H_
#define COSIMO_TESTS_FMUS_MODEL_CORE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MODEL_MAX_REALS 32
#define MODEL_MAX_INTS 8
#define MODEL_MAX_BOOLS 8
#define MODEL_MAX_STRING 128
#define MODEL_MAX_WIDE 4   /* Int64 and UInt64 variables (FMI 3) */
#define MODEL_MAX_CLOCKS 4 /* FMI 3 Clock variables, value references 700 + k */
#ifndef MODEL_INTERNAL_STEP
#define MODEL_INTERNAL_STEP 1e-4 /* s, RK4 substep of DoStep (fmi2_msd_cheap: one per DoStep) */
#endif

typedef struct {
  double time;
  double r[MODEL_MAX_REALS];
  int32_t i[MODEL_MAX_INTS];
  bool b[MODEL_MAX_BOOLS];
  char s[MODEL_MAX_STRING];
  int64_t i64[MODEL_MAX_WIDE];
  uint64_t u64[MODEL_MAX_WIDE];
  int32_t string_reads;     /* fmiXGetString calls, counted by the frameworks */
  unsigned char binary[16]; /* FMI 3 only: the Binary variable at vr 600 */
  size_t binary_size;
  /* du/dt and d2u/dt2 of real inputs on a CS step (canInterpolateInputs, orders 1 and 2) */
  double r_slope[MODEL_MAX_REALS];
  double r_slope2[MODEL_MAX_REALS];
  bool next_event_defined;
  double next_event_time;
  bool terminate;
  char message[256]; /* set by a model function that fails */
  /* FMI 3 clocks (clock k at vr 700 + k): active in the current Event Mode (fmi3SetClock of an
   * input clock, or set by the model for an output clock; cleared when Event Mode ends), and
   * what fmi3GetIntervalDecimal / fmi3GetShiftDecimal answer: the interval and its qualifier
   * (0 not yet known, 1 unchanged, 2 changed: the framework makes a "changed" answered once
   * "unchanged"), the shift. */
  bool clock_active[MODEL_MAX_CLOCKS];
  double clock_interval[MODEL_MAX_CLOCKS];
  int clock_qualifier[MODEL_MAX_CLOCKS];
  double clock_shift[MODEL_MAX_CLOCKS];
  /* Scheduled Execution: the partition of clock k runs this (fmi3ActivateModelPartition). */
  int clock_activations[MODEL_MAX_CLOCKS];
} ModelData;

/* FMI 3 clocks (optional: model_core.c has a weak default of none). */
extern const int kNumClocks;
/* Scheduled Execution: runs the model partition of clock `k` at m->time (model_core.c's weak
 * default calls ModelEventUpdate with clock k active). */
void ModelActivatePartition(ModelData* m, int k);
/* In Event Mode, before fmi3GetClock answers: the model sets clock_active of the output clocks
 * that tick in this Event Mode (model_core.c's weak default: none). */
void ModelOutputClocks(ModelData* m);

/* FMI 3 arrays of reals (optional: model_core.c has a weak default of none). The Float64 array
 * at value reference `vr` holds r[first] .. r[first + size - 1] in row-major order; fmi3Get/
 * SetFloat64 transfer all `size` values for it (FMI 3.0.1 section 2.2.6.2). */
typedef struct {
  unsigned vr;
  int first;
  int size;
} ModelArray;
extern const int kNumArrays;
extern const ModelArray kArrays[];

/* Provided by each model. */
extern const char* const kModelName;
extern const int kNumReals, kNumInts, kNumBools;
extern const int kNumInt64s, kNumUInt64s; /* FMI 3 only */
extern const int kNumStates;
extern const unsigned kStateVr[];      /* reals holding the continuous states */
extern const unsigned kDerivativeVr[]; /* reals holding their derivatives */
extern const int kNumInputs;
extern const unsigned kInputVr[]; /* real inputs */
extern const int kNumEventIndicators;

void ModelStart(ModelData* m);     /* start values */
void ModelCalculate(ModelData* m); /* derivatives and outputs from time, states, inputs */
/* The functions below have weak defaults in model_core.c (no event indicators; an event that
 * recomputes and defines no next time event; no partials; no step event; every step accepted):
 * a model defines only those it needs. */
void ModelEventIndicators(const ModelData* m, double* z);
/* At an event (after initialisation, at a time event or a state event): discrete changes,
 * next time event. Sets *states_changed when continuous states were re-initialised. */
void ModelEventUpdate(ModelData* m, bool* states_changed);
/* d(unknown)/d(known) for real variables; false when unknown/known are not a pair it knows. */
bool ModelPartial(const ModelData* m, unsigned unknown, unsigned known, double* value);
/* Called by fmiXCompletedIntegratorStep: true asks for event mode (a step event). */
bool ModelStepEvent(ModelData* m);
/* Called by DoStep before stepping from t over h: false fails the step (message set). */
bool ModelBeforeStep(ModelData* m, double t, double h);

/* Optional: model_core.c has a weak default that accepts every value. Checks a value the
 * importer sets through fmiXSet<type>: `kind` is 'r' (reals), 'i' (integers), 'b' (Booleans),
 * 'l' (FMI 3 Int64), 'u' (FMI 3 UInt64), `index` the local index in that array, `value` the
 * value as a double, `discrete_allowed` false in Continuous-Time Mode (where only continuous
 * inputs may be set). Returning false refuses the call (fmiXError), with m->message set. */
bool ModelAcceptSet(ModelData* m, char kind, unsigned index, double value, bool discrete_allowed);

/* Shared by the frameworks. */
void ModelDerivatives(ModelData* m, double t, const double* x, const double* u0, double t0,
                      double* dx);
/* Integrates [t, t + h] with RK4 substeps, handling state and time events at substep ends.
 * With `stop_at_events` (FMI 3 Co-Simulation in event mode with early return) it does not handle
 * them: it ends the last substep at a time event, stops at the end of the substep where an event
 * indicator changed sign or the time event is reached, and returns true (m->time is where it
 * stopped); the importer then handles the event with fmi3UpdateDiscreteStates. */
bool ModelIntegrate(ModelData* m, double h, bool stop_at_events);

#endif /* COSIMO_TESTS_FMUS_MODEL_CORE_H_ */
