// A bare FMI 2.0 importer of the test FMU fmi2_msd (dlopen, the function pointers a stepping loop
// needs, one instance): the floor the FMU figures compare Cosimo's FMU units with (figure 5,
// fig8.fmu).
#pragma once

#include <dlfcn.h>

#include <cstdlib>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "cosimo/common/status.h"
#include "cosimo/fmi/fmi2_api.h"

namespace cosimo::bench {

extern "C" inline void BenchLogger(fmi2ComponentEnvironment, fmi2String, fmi2Status, fmi2String,
                                   fmi2String, ...) {}

// The bare importer: just the function pointers a stepping loop needs.
class BareFmu {
 public:
  ~BareFmu() {
    if (component_ != nullptr) free_instance_(component_);
    if (library_ != nullptr) dlclose(library_);
  }

  absl::Status Open(const std::string& library) {
    library_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library_ == nullptr) return absl::NotFoundError(absl::StrCat("dlopen: ", dlerror()));
    COSIMO_RETURN_IF_ERROR(Resolve("fmi2Instantiate", &instantiate_));
    COSIMO_RETURN_IF_ERROR(Resolve("fmi2FreeInstance", &free_instance_));
    COSIMO_RETURN_IF_ERROR(Resolve("fmi2SetupExperiment", &setup_));
    COSIMO_RETURN_IF_ERROR(Resolve("fmi2EnterInitializationMode", &enter_init_));
    COSIMO_RETURN_IF_ERROR(Resolve("fmi2ExitInitializationMode", &exit_init_));
    COSIMO_RETURN_IF_ERROR(Resolve("fmi2SetReal", &set_real_));
    COSIMO_RETURN_IF_ERROR(Resolve("fmi2GetReal", &get_real_));
    COSIMO_RETURN_IF_ERROR(Resolve("fmi2GetInteger", &get_integer_));
    COSIMO_RETURN_IF_ERROR(Resolve("fmi2DoStep", &do_step_));
    callbacks_ = {BenchLogger, std::calloc, std::free, nullptr, nullptr};
    component_ = instantiate_("bare", fmi2CoSimulation, "{cosimo-test-msd}", "file:///tmp",
                              &callbacks_, fmi2False, fmi2False);
    if (component_ == nullptr) return absl::InternalError("fmi2Instantiate failed");
    if (setup_(component_, fmi2False, 0.0, 0.0, fmi2False, 0.0) != fmi2OK ||
        enter_init_(component_) != fmi2OK || exit_init_(component_) != fmi2OK) {
      return absl::InternalError("initialisation failed");
    }
    return absl::OkStatus();
  }

  bool Step(double h) {
    const fmi2ValueReference input = 4;            // F
    const fmi2ValueReference outputs[2] = {0, 1};  // x, v
    const fmi2ValueReference steps = 0;
    const double f = 0.5;
    bool ok = set_real_(component_, &input, 1, &f) == fmi2OK;
    ok = ok && do_step_(component_, time_, h, fmi2True) == fmi2OK;
    ok = ok && get_real_(component_, outputs, 2, values_) == fmi2OK;
    ok = ok && get_integer_(component_, &steps, 1, &count_) == fmi2OK;
    time_ += h;
    return ok;
  }

 private:
  template <typename F>
  absl::Status Resolve(const char* name, F** out) {
    *out = reinterpret_cast<F*>(dlsym(library_, name));
    if (*out == nullptr) return absl::NotFoundError(absl::StrCat("no symbol ", name));
    return absl::OkStatus();
  }

  void* library_ = nullptr;
  fmi2Component component_ = nullptr;
  fmi2CallbackFunctions callbacks_{};
  fmi2InstantiateTYPE* instantiate_ = nullptr;
  fmi2FreeInstanceTYPE* free_instance_ = nullptr;
  fmi2SetupExperimentTYPE* setup_ = nullptr;
  fmi2EnterInitializationModeTYPE* enter_init_ = nullptr;
  fmi2ExitInitializationModeTYPE* exit_init_ = nullptr;
  fmi2SetRealTYPE* set_real_ = nullptr;
  fmi2GetRealTYPE* get_real_ = nullptr;
  fmi2GetIntegerTYPE* get_integer_ = nullptr;
  fmi2DoStepTYPE* do_step_ = nullptr;
  double time_ = 0.0;
  double values_[2] = {0.0, 0.0};
  fmi2Integer count_ = 0;
};

}  // namespace cosimo::bench
