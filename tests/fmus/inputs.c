/* Inputs: every variable type as an input with a non-zero start value, as tools export them
 * (issue 29). Neither connected nor named in `parameters`, an input keeps its start value: the
 * importer must not set it (FMI 2.0.4 section 2.2.7, FMI 3.0.1 section 2.4.7). Some of them
 * refuse a zero, as real FMUs do: the Enumeration input e has the items 1, 2, 3 only.
 *
 * Reals: 0 y = k u (output), 1 k (parameter, 1), 2 u (input, continuous, 2), 3 ud (input,
 * discrete, 3: settable in Model Exchange only in Initialization and Event Mode, FMI 2.0.4
 * section 3.2.3, FMI 3.0.1 section 3.2.1), 4 x (output and state, x' = ud), 5 der_x, 6 sum =
 * u + ud + n + e + flag (+ count, FMI 3) (output). Integers: 0 n (input, 4), 1 e (FMI 2
 * Enumeration input, 1), 2 e_out = e (output). Boolean 0: flag (input, true). FMI 3
 * (INPUTS_FMI3): e is the Enumeration (Int64) i64[0], count the UInt64 input u64[0] (6), and
 * blob a Binary output (vr 600: the bytes ca fe and e). */
#include <stdio.h>

#include "model_core.h"

enum { kY, kK, kU, kUd, kX, kDerX, kSum };
enum { kN, kE2, kEOut };

const char* const kModelName = "inputs";
const int kNumReals = 7, kNumInts = 3, kNumBools = 1;
#ifdef INPUTS_FMI3
const int kNumInt64s = 1, kNumUInt64s = 1;
#define ENUM_VALUE(m) ((double)(m)->i64[0])
#define ENUM_KIND 'l'
#define ENUM_INDEX 0u
#else
const int kNumInt64s = 0, kNumUInt64s = 0;
#define ENUM_VALUE(m) ((double)(m)->i[kE2])
#define ENUM_KIND 'i'
#define ENUM_INDEX ((unsigned)kE2)
#endif
const int kNumStates = 1;
const unsigned kStateVr[] = {kX};
const unsigned kDerivativeVr[] = {kDerX};
const int kNumInputs = 2;
const unsigned kInputVr[] = {kU, kUd};
const int kNumEventIndicators = 0;

void ModelStart(ModelData* m) {
  m->r[kK] = 1.0;
  m->r[kU] = 2.0;
  m->r[kUd] = 3.0;
  m->r[kX] = 0.0;
  m->i[kN] = 4;
  m->i[kE2] = 1;
  m->b[0] = true;
#ifdef INPUTS_FMI3
  m->i64[0] = 1;
  m->u64[0] = 6;
#endif
}

void ModelCalculate(ModelData* m) {
  m->r[kY] = m->r[kK] * m->r[kU];
  m->r[kDerX] = m->r[kUd];
  m->r[kSum] = m->r[kU] + m->r[kUd] + m->i[kN] + ENUM_VALUE(m) + (m->b[0] ? 1.0 : 0.0);
#ifdef INPUTS_FMI3
  m->r[kSum] += (double)m->u64[0];
  /* The Binary output blob: ca fe and the Enumeration's value. */
  m->binary[0] = 0xca;
  m->binary[1] = 0xfe;
  m->binary[2] = (unsigned char)m->i64[0];
  m->binary_size = 3;
#endif
  m->i[kEOut] = (int)ENUM_VALUE(m);
}

bool ModelAcceptSet(ModelData* m, char kind, unsigned index, double value, bool discrete_allowed) {
  if (kind == ENUM_KIND && index == ENUM_INDEX && !(value == 1 || value == 2 || value == 3)) {
    snprintf(m->message, sizeof(m->message), "%g is not a legal value for Enumeration_input e",
             value);
    return false;
  }
  if (kind == 'r' && index == kUd && !discrete_allowed) {
    snprintf(m->message, sizeof(m->message),
             "Variable ud can only be set in initialization mode or event mode");
    return false;
  }
  return true;
}

bool ModelPartial(const ModelData* m, unsigned unknown, unsigned known, double* value) {
  if (unknown == kY && known == kU) {
    *value = m->r[kK];
    return true;
  }
  if (unknown == kDerX && known == kUd) {
    *value = 1.0;
    return true;
  }
  *value = 0.0;
  return (unknown == kY || unknown == kDerX) && (known == kX || known == kU || known == kUd);
}
