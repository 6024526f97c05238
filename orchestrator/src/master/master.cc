// RunMaster: setup and checks, consistent initial outputs, the time loop (accepted steps,
// rejections, adaptive H), recording and termination. One attempt of a macro step is in
// step_attempts.cc.
#include "cosimo/orchestrator/master.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cosimo/common/status.h"
#include "orchestrator/src/master/master_run.h"

namespace cosimo::orchestrator {
namespace master {

MasterRun::MasterRun(const v1::Scenario& scenario, const std::vector<UnitProxy*>& units,
                     MasterObserver* observer)
    : scenario_(scenario), proxies_(units), observer_(observer) {}

std::string MasterRun::UnitList(const std::vector<int>& units) const {
  std::vector<std::string> quoted;
  for (int u : units) quoted.push_back(absl::StrCat("'", names_[u], "'"));
  return absl::StrJoin(quoted, ", ");
}

absl::Status MasterRun::Setup() {
  if (static_cast<int>(proxies_.size()) != scenario_.units_size()) {
    return absl::InvalidArgumentError(absl::StrCat("RunMaster: ", proxies_.size(),
                                                   " units given for a scenario with ",
                                                   scenario_.units_size()));
  }
  const int n = scenario_.units_size();
  for (int u = 0; u < n; ++u) {
    if (proxies_[u] == nullptr || proxies_[u]->name() != scenario_.units(u).name()) {
      return absl::InvalidArgumentError(
          absl::StrCat("RunMaster: unit ", u, " must be '", scenario_.units(u).name(), "'"));
    }
    descriptions_.push_back(proxies_[u]->description());
    names_.push_back(scenario_.units(u).name());
  }
  COSIMO_ASSIGN_OR_RETURN(coupling_, ResolveCoupling(scenario_, descriptions_));
  COSIMO_ASSIGN_OR_RETURN(plan_, PlanRecording(scenario_, descriptions_));
  edges_ = Edges(coupling_);

  const v1::Algorithm& a = scenario_.algorithm();
  kind_ = a.kind();
  iterative_ = kind_ == v1::Algorithm::FIXED_POINT || kind_ == v1::Algorithm::NEWTON;
  start_ = scenario_.start_time();
  stop_ = scenario_.stop_time();
  step_ = a.step_size();
  if (!(stop_ > start_)) {
    return absl::InvalidArgumentError(
        absl::StrCat("stop_time (", stop_, ") must be > start_time (", start_, ")"));
  }
  if (!(step_ > 0.0)) {
    return absl::InvalidArgumentError(absl::StrCat("algorithm.step_size must be > 0, got ", step_));
  }
  if (a.tolerance() < 0.0 || a.max_iterations() < 0) {
    return absl::InvalidArgumentError("algorithm.tolerance and max_iterations must be >= 0");
  }
  tolerance_ = a.tolerance() > 0.0 ? a.tolerance() : 1e-6;
  max_iterations_ = a.max_iterations() > 0 ? a.max_iterations() : 50;
  relaxation_ = a.relaxation() > 0.0 ? a.relaxation() : 1.0;
  if (relaxation_ > 1.0 && !a.aitken()) {
    return absl::InvalidArgumentError(
        absl::StrCat("algorithm.relaxation must be in (0, 1], got ", a.relaxation()));
  }
  aitken_ = a.aitken();

  adaptive_ = a.has_adaptive();
  if (adaptive_) {
    const v1::Adaptive& ad = a.adaptive();
    min_step_ = ad.min_step() > 0.0 ? ad.min_step() : step_ * 1e-3;
    max_step_ = ad.max_step() > 0.0 ? ad.max_step() : stop_ - start_;
    if (min_step_ > max_step_ || step_ < min_step_ * (1 - 1e-12)) {
      return absl::InvalidArgumentError(
          absl::StrCat("algorithm.adaptive: need min_step (", min_step_, ") <= step_size (", step_,
                       ") and min_step <= max_step (", max_step_, ")"));
    }
    error_tolerance_ = ad.tolerance() > 0.0 ? ad.tolerance() : (iterative_ ? 0.0 : 1e-4);
    std::vector<int> fixed;
    for (int u = 0; u < n; ++u) {
      if (!descriptions_[u].capabilities.can_vary_step) fixed.push_back(u);
    }
    if (!fixed.empty()) {
      spdlog::warn(
          "units {} cannot vary their step size: the communication step stays fixed "
          "at {} s",
          UnitList(fixed), step_);
      adaptive_ = false;
    }
  }

  // Reactivity against the algorithm.
  if (kind_ == v1::Algorithm::JACOBI) {
    std::vector<int> reactive;
    for (int u = 0; u < n; ++u) {
      if (descriptions_[u].capabilities.input_reactive && !coupling_.inputs[u].empty()) {
        reactive.push_back(u);
      }
    }
    if (!reactive.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "at t=", start_, ": units ", UnitList(reactive),
          " are input reactive (they need their inputs at t[N+1] to step) and cannot run "
          "under JACOBI; use GAUSS_SEIDEL, FIXED_POINT or NEWTON"));
    }
  }
  if (kind_ == v1::Algorithm::GAUSS_SEIDEL) {
    absl::StatusOr<std::vector<int>> order = GaussSeidelOrder(names_, descriptions_, coupling_);
    if (!order.ok()) {
      return absl::FailedPreconditionError(
          absl::StrCat("at t=", start_, ": ", order.status().message()));
    }
    order_ = *std::move(order);
  } else {
    for (int u = 0; u < n; ++u) order_.push_back(u);
  }

  // Units and their input approximations.
  slots_.resize(n);
  error_order_ = 100;
  for (int u = 0; u < n; ++u) {
    UnitSlot& s = slots_[u];
    s.proxy = proxies_[u];
    s.name = names_[u];
    s.rolls_back = s.proxy->iterative_mode() == "rollback";
    s.num_inputs = static_cast<int>(descriptions_[u].inputs.size());
    s.num_outputs = static_cast<int>(descriptions_[u].outputs.size());
    s.approx.kind = EffectiveApproximation(scenario_, u);
    s.approx.degree = scenario_.units(u).extrapolation_degree() > 0
                          ? scenario_.units(u).extrapolation_degree()
                          : a.extrapolation_degree();
    s.history.Reset(s.num_outputs);
    s.outputs = Eigen::VectorXd::Zero(s.num_outputs);
    s.derivatives = Eigen::VectorXd::Zero(s.num_outputs);
    s.sources = coupling_.inputs[u];
    s.value_unknown.assign(s.num_inputs, -1);
    s.derivative_unknown.assign(s.num_inputs, -1);
    s.command.step.inputs.coefficients =
        Eigen::MatrixXd::Zero(s.num_inputs, s.approx.num_coefficients());
    s.command.inputs = Eigen::VectorXd::Zero(s.num_inputs);
    if (s.num_inputs > 0) error_order_ = std::min(error_order_, s.approx.order());
  }
  if (error_order_ == 100) error_order_ = 0;

  // HERMITE needs output derivatives from every source.
  for (const CouplingEdge& e : edges_) {
    if (slots_[e.to_unit].approx.kind != v1::HERMITE) continue;
    if (descriptions_[e.from_unit].capabilities.max_output_derivative_order < 1) {
      return absl::FailedPreconditionError(
          absl::StrCat("unit '", names_[e.to_unit], "' input '",
                       descriptions_[e.to_unit].inputs[e.to_input].name,
                       "' uses HERMITE, but unit '", names_[e.from_unit],
                       "' gives no output derivatives (max_output_derivative_order 0); "
                       "use FOH or POLYNOMIAL for it"));
    }
  }

  // Tentative steps (iterative kinds, adaptive steps) need rollback or COSTARICA.
  if (iterative_ || adaptive_) {
    std::vector<int> impossible;
    for (int u = 0; u < n; ++u) {
      if (proxies_[u]->iterative_mode() != "rollback" &&
          !descriptions_[u].capabilities.provides_jacobians) {
        impossible.push_back(u);
      }
    }
    if (!impossible.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "at t=", start_, ": units ", UnitList(impossible),
          " cannot roll back (rollback FORBID or no state save/restore) and provide no "
          "Jacobians, so COSTARICA cannot estimate their tentative steps under ",
          v1::Algorithm::Kind_Name(kind_), adaptive_ ? " with adaptive steps" : "",
          "; allow rollback (rollback AUTO) or use a non-iterative kind with fixed steps"));
    }
  }
  linear_coupling_ = false;
  if (a.linear_coupling() && iterative_) {
    std::vector<int> rolled;
    for (int u = 0; u < n; ++u) {
      if (proxies_[u]->iterative_mode() != "estimate") rolled.push_back(u);
    }
    if (rolled.empty()) {
      linear_coupling_ = true;
    } else {
      spdlog::warn(
          "algorithm.linear_coupling ignored: units {} roll back instead of being "
          "estimated, so the coupling is not affine; iterating instead",
          UnitList(rolled));
    }
  }

  // NEWTON: where the Jacobian comes from. AUTO takes the units' own sensitivities when every
  // unit provides Jacobians, else Jacobian-free Newton-Krylov.
  newton_jacobian_ = a.newton_jacobian();
  if (kind_ == v1::Algorithm::NEWTON) {
    std::vector<int> without;
    for (int u = 0; u < n; ++u) {
      if (!descriptions_[u].capabilities.provides_jacobians) without.push_back(u);
    }
    if (newton_jacobian_ == v1::Algorithm::AUTO) {
      newton_jacobian_ = without.empty() ? v1::Algorithm::DIRECTIONAL : v1::Algorithm::JFNK;
    } else if (newton_jacobian_ == v1::Algorithm::DIRECTIONAL && !without.empty()) {
      spdlog::warn(
          "algorithm.newton_jacobian DIRECTIONAL: units {} provide no Jacobians; "
          "using JFNK (Jacobian-free Newton-Krylov) instead",
          UnitList(without));
      newton_jacobian_ = v1::Algorithm::JFNK;
    }
    spdlog::info("NEWTON Jacobian: {}", v1::Algorithm::NewtonJacobian_Name(newton_jacobian_));
  }

  // Coupling unknowns at t[N+1].
  for (int u = 0; u < n; ++u) {
    UnitSlot& s = slots_[u];
    s.first_unknown = static_cast<int>(unknowns_.size());
    for (int i = 0; i < s.num_inputs; ++i) {
      const Coupling::Source& src = s.sources[i];
      if (src.unit < 0) continue;
      s.value_unknown[i] = static_cast<int>(unknowns_.size());
      unknowns_.push_back({u, i, false, src.unit, src.output});
      if (s.approx.kind == v1::HERMITE) {
        s.derivative_unknown[i] = static_cast<int>(unknowns_.size());
        unknowns_.push_back({u, i, true, src.unit, src.output});
      }
    }
    s.num_unknowns = static_cast<int>(unknowns_.size()) - s.first_unknown;
  }
  const auto nz = static_cast<Eigen::Index>(unknowns_.size());
  for (Eigen::VectorXd* v : {&z_, &z_pred_, &g_, &g_pert_, &r_, &r_prev_, &dz_, &z_pert_}) {
    *v = Eigen::VectorXd::Zero(nz);
  }
  jacobian_ = Eigen::MatrixXd::Zero(nz, nz);
  lu_ = Eigen::PartialPivLU<Eigen::MatrixXd>(nz);
  weights_ = Eigen::VectorXd::Ones(nz);
  work_ = Eigen::VectorXd::Zero(nz);
  if (kind_ == v1::Algorithm::NEWTON) {  // also DIRECTIONAL: it may fall back to JFNK
    krylov_dim_ = static_cast<int>(std::min<Eigen::Index>(nz, kMaxKrylovDimension));
    krylov_basis_ = Eigen::MatrixXd::Zero(nz, krylov_dim_ + 1);
    hessenberg_ = Eigen::MatrixXd::Zero(krylov_dim_ + 1, std::max(krylov_dim_, 1));
    for (Eigen::VectorXd* v : {&givens_c_, &givens_s_, &krylov_y_}) {
      *v = Eigen::VectorXd::Zero(krylov_dim_ + 1);
    }
    krylov_rhs_ = Eigen::VectorXd::Zero(krylov_dim_ + 1);
  }

  result_.columns.push_back("time");
  result_.types.push_back(ValueType::kReal);
  for (const RecordColumn& c : plan_.columns) {
    if (c.unit < 0) continue;
    result_.columns.push_back(c.name);
    result_.types.push_back(c.type);
  }
  return absl::OkStatus();
}

absl::Status MasterRun::InitializeUnits() {
  for (UnitSlot& s : slots_) {
    s.command.kind = UnitCommand::Kind::kInitialize;
    s.command.time = start_;
    s.proxy->Send(s.command);
  }
  absl::Status first;
  for (UnitSlot& s : slots_) {
    absl::Status st = s.proxy->Await(&s.response);
    if (!st.ok() && first.ok()) {
      first = Annotate(st, absl::StrCat("unit '", s.name, "' at t=", start_, ": initialize"));
    }
    if (!st.ok()) continue;
    if (s.response.outputs.outputs.size() != s.num_outputs) {
      first = absl::InternalError(absl::StrCat("unit '", s.name, "' initialised with ",
                                               s.response.outputs.outputs.size(),
                                               " outputs; it declares ", s.num_outputs));
      continue;
    }
    s.outputs = s.response.outputs.outputs;
    if (s.response.outputs.derivatives.size() == s.num_outputs) {
      s.derivatives = s.response.outputs.derivatives;
    }
    s.recorded = s.response.outputs.recorded;
    s.recorded_strings = s.response.outputs.recorded_strings;
  }
  return first;
}

absl::Status MasterRun::ResolveInitialOutputs() {
  // Evaluate every unit with inputs from its sources' outputs, in feedthrough order; with a
  // feedthrough cycle, sweep until the outputs stop changing.
  std::vector<CouplingEdge> feedthrough;
  for (const CouplingEdge& e : edges_) {
    if (IsFeedthrough(descriptions_, e)) feedthrough.push_back(e);
  }
  const int n = static_cast<int>(slots_.size());
  const std::vector<std::vector<int>> cycles = Cycles(n, feedthrough);
  std::vector<int> order;
  if (cycles.empty()) {
    COSIMO_ASSIGN_OR_RETURN(order, TopologicalOrder(n, feedthrough));
  } else {
    for (int u = 0; u < n; ++u) order.push_back(u);
  }
  // With a feedthrough cycle, sweep until the outputs stop changing; then one more pass so that
  // every unit (also those evaluated before their sources settled) has its outputs, output
  // derivatives and recorded values at the final inputs.
  const int sweeps = cycles.empty() ? 2 : 200;
  bool final_pass = false;
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    double change = 0.0;
    for (int u : order) {
      UnitSlot& s = slots_[u];
      if (s.num_inputs == 0) continue;
      for (int i = 0; i < s.num_inputs; ++i) {
        const Coupling::Source& src = s.sources[i];
        s.command.inputs[i] = src.unit < 0 ? 0.0 : slots_[src.unit].outputs[src.output];
      }
      s.command.kind = UnitCommand::Kind::kEvaluate;
      COSIMO_RETURN_IF_ERROR(Annotate(
          s.proxy->Call(s.command, &s.response),
          absl::StrCat("unit '", s.name, "' at t=", start_, ": evaluate initial outputs")));
      const OutputsReply& out = s.response.outputs;
      if (out.outputs.size() != s.num_outputs) {
        return absl::InternalError(
            absl::StrCat("unit '", s.name, "' evaluated ", out.outputs.size(), " outputs"));
      }
      for (int o = 0; o < s.num_outputs; ++o) {
        change = std::max(
            change, std::abs(out.outputs[o] - s.outputs[o]) / (1.0 + std::abs(out.outputs[o])));
      }
      s.outputs = out.outputs;
      if (out.derivatives.size() == s.num_outputs) s.derivatives = out.derivatives;
      s.recorded = out.recorded;
      s.recorded_strings = out.recorded_strings;
    }
    if (cycles.empty() && sweep == 0) continue;
    if (cycles.empty()) break;
    if (change <= 1e-13) {
      if (final_pass) break;
      final_pass = true;
      continue;
    }
    if (sweep + 1 == sweeps || !std::isfinite(change)) {
      std::vector<std::string> described;
      for (const std::vector<int>& c : cycles) {
        described.push_back(DescribeCycle(c, names_, descriptions_, feedthrough));
      }
      return absl::FailedPreconditionError(
          absl::StrCat("at t=", start_, ": the initial outputs of the feedthrough loop ",
                       absl::StrJoin(described, "; "), " did not converge in ", sweeps,
                       " fixed-point sweeps (last change ", change, ")"));
    }
  }
  COSIMO_RETURN_IF_ERROR(InitialDerivatives(order, !cycles.empty()));
  for (UnitSlot& s : slots_) s.history.Push(start_, s.outputs, s.derivatives);
  return absl::OkStatus();
}

absl::Status MasterRun::InitialDerivatives(const std::vector<int>& order, bool cyclic) {
  // Evaluate replies give dy/dt at frozen inputs (u' = 0). For an output reactive unit the
  // true derivative adds dG/du u', with u' the sources' output derivatives: a central
  // directional difference of Evaluate along u' (exact for outputs linear in u). Hermite
  // coupling needs it at t0, where no converged step gives the derivative yet.
  std::vector<Eigen::VectorXd> frozen(slots_.size());
  for (size_t u = 0; u < slots_.size(); ++u) frozen[u] = slots_[u].derivatives;
  const int sweeps = cyclic ? 50 : 1;
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    double change = 0.0;
    for (int u : order) {
      UnitSlot& s = slots_[u];
      if (s.num_inputs == 0 || !descriptions_[u].capabilities.output_reactive) continue;
      Eigen::VectorXd u0(s.num_inputs), du(s.num_inputs);
      for (int i = 0; i < s.num_inputs; ++i) {
        const Coupling::Source& src = s.sources[i];
        u0[i] = src.unit < 0 ? 0.0 : slots_[src.unit].outputs[src.output];
        du[i] = src.unit < 0 ? 0.0 : slots_[src.unit].derivatives[src.output];
      }
      const double du_norm = du.lpNorm<Eigen::Infinity>();
      Eigen::VectorXd corrected = frozen[u];
      if (du_norm > 0.0) {
        const double eps = 1e-5 * (1.0 + u0.lpNorm<Eigen::Infinity>()) / du_norm;
        Eigen::VectorXd y_plus, y_minus;
        for (double sign : {1.0, -1.0}) {
          s.command.kind = UnitCommand::Kind::kEvaluate;
          s.command.inputs = u0 + sign * eps * du;
          COSIMO_RETURN_IF_ERROR(Annotate(
              s.proxy->Call(s.command, &s.response),
              absl::StrCat("unit '", s.name, "' at t=", start_, ": evaluate output derivatives")));
          (sign > 0 ? y_plus : y_minus) = s.response.outputs.outputs;
        }
        corrected += (y_plus - y_minus) / (2.0 * eps);
        // Leave the unit evaluated at the consistent inputs.
        s.command.inputs = u0;
        COSIMO_RETURN_IF_ERROR(Annotate(
            s.proxy->Call(s.command, &s.response),
            absl::StrCat("unit '", s.name, "' at t=", start_, ": evaluate initial outputs")));
        s.recorded = s.response.outputs.recorded;
        s.recorded_strings = s.response.outputs.recorded_strings;
      }
      change = std::max(change, (corrected - s.derivatives).lpNorm<Eigen::Infinity>() /
                                    (1.0 + corrected.lpNorm<Eigen::Infinity>()));
      s.derivatives = corrected;
    }
    if (change <= 1e-12) break;
  }
  return absl::OkStatus();
}

void MasterRun::RecordRow(double t) {
  result_.values.push_back(t);
  for (const RecordColumn& c : plan_.columns) {
    if (c.unit < 0) continue;
    const UnitSlot& s = slots_[c.unit];
    double v = std::nan("");
    if (c.type == ValueType::kString) {
      const bool has = c.recorded >= 0 && c.recorded < static_cast<int>(s.recorded_strings.size());
      result_.strings.push_back(has ? s.recorded_strings[c.recorded] : std::string());
    } else if (c.output >= 0) {
      v = s.outputs[c.output];
    } else if (c.recorded >= 0 && c.recorded < static_cast<int>(s.recorded.size())) {
      v = s.recorded[c.recorded];
    }
    result_.values.push_back(v);
  }
}

absl::Status MasterRun::Accept(double t_new, bool tentative) {
  if (tentative) COSIMO_RETURN_IF_ERROR(CommitAll(t_new));
  for (UnitSlot& s : slots_) {
    // Swapped, not copied: the reply's buffers are next read after the unit's next reply has
    // overwritten them (AwaitStep checks the sizes).
    StepReply& reply = s.response.step;
    s.outputs.swap(reply.outputs);
    if (reply.derivatives.size() == s.num_outputs) {
      s.derivatives.swap(reply.derivatives);
    } else {
      s.derivatives.setZero();
    }
    s.recorded.swap(reply.recorded);
    s.recorded_strings.swap(reply.recorded_strings);
    s.history.Push(t_new, s.outputs, s.derivatives);
  }
  RecordRow(t_new);
  return absl::OkStatus();
}

absl::Status MasterRun::TimeLoop() {
  const bool tentative = iterative_ || adaptive_;
  // Fixed H: t[N] = start + N H (no drift); the last step is shortened onto stop_time.
  const auto num_fixed_steps =
      static_cast<uint64_t>(std::max(1.0, std::ceil((stop_ - start_) / step_ - 1e-9)));
  uint64_t n = 0;
  double t = start_;
  double h = step_;
  while (t < stop_) {
    if (observer_ != nullptr && observer_->Canceled()) {
      return absl::CancelledError(absl::StrCat("canceled at t=", t));
    }
    double t_next = 0.0;
    if (adaptive_) {
      h = std::clamp(h, min_step_, max_step_);
      // Land on stop_time: take the rest when it is (about) one step or less.
      if (t + h * (1.0 + 1e-9) >= stop_ || stop_ - (t + h) < 0.5 * min_step_) h = stop_ - t;
      t_next = t + h;
    } else {
      t_next = n + 1 >= num_fixed_steps ? stop_ : start_ + static_cast<double>(n + 1) * step_;
      h = t_next - t;
    }
    Attempt attempt;
    while (true) {
      attempt = Attempt();
      if (iterative_) {
        COSIMO_RETURN_IF_ERROR(IterativeAttempt(t, h, &attempt));
      } else {
        COSIMO_RETURN_IF_ERROR(NonIterativeAttempt(t, h, tentative, &attempt));
      }
      progress_.iterations += static_cast<uint64_t>(attempt.iterations);
      if (attempt.accepted) break;
      ++result_.steps_rejected;
      ++progress_.steps_rejected;
      if (!tentative) {
        return absl::AbortedError(
            absl::StrCat("at t=", t, ": step [", t, ", ", t + h, "] failed: ", attempt.reason));
      }
      COSIMO_RETURN_IF_ERROR(RejectAll(t));
      if (!adaptive_) {
        return absl::AbortedError(absl::StrCat("at t=", t, ": step [", t, ", ", t + h,
                                               "] rejected with fixed H=", h, ": ", attempt.reason,
                                               "; set algorithm.adaptive to let the step shrink"));
      }
      if (h <= min_step_ * (1.0 + 1e-9)) {
        return absl::AbortedError(absl::StrCat("at t=", t, ": step [", t, ", ", t + h,
                                               "] rejected at min_step=", min_step_, ": ",
                                               attempt.reason));
      }
      double factor = 0.5;
      if (attempt.error > 1.0) {
        factor = std::clamp(0.9 * std::pow(attempt.error, -1.0 / (error_order_ + 1)), 0.2, 0.9);
      }
      h = std::max(min_step_, h * factor);
      t_next = t + h;
    }
    COSIMO_RETURN_IF_ERROR(Accept(t_next, tentative));
    ++result_.steps_accepted;
    accepted_iterations_ += static_cast<uint64_t>(attempt.iterations);
    result_.iterations_max =
        std::max(result_.iterations_max, static_cast<uint64_t>(attempt.iterations));
    t = t_next;
    ++n;
    progress_.time = t;
    progress_.steps_accepted = result_.steps_accepted;
    if (observer_ != nullptr) observer_->OnProgress(progress_);
    if (adaptive_) {
      double factor = 1.0;
      if (attempt.error >= 0.0) {
        factor =
            attempt.error > 0.0
                ? std::clamp(0.9 * std::pow(attempt.error, -1.0 / (error_order_ + 1)), 0.5, 2.0)
                : 2.0;
      } else {
        factor = attempt.converged_easily ? 1.5 : 1.0;
      }
      if (iterative_ && attempt.iterations > max_iterations_ / 2) factor = std::min(factor, 0.8);
      h *= factor;
    }
  }
  return absl::OkStatus();
}

absl::Status MasterRun::Terminate(MasterResult* result) {
  terminated_ = true;
  for (UnitSlot& s : slots_) {
    s.command.kind = UnitCommand::Kind::kTerminate;
    s.proxy->Send(s.command);
  }
  absl::Status first;
  for (UnitSlot& s : slots_) {
    absl::Status st = s.proxy->Await(&s.response);
    if (!st.ok()) {
      if (first.ok()) first = Annotate(st, absl::StrCat("unit '", s.name, "': terminate"));
      continue;
    }
    result->units.push_back({s.name, s.proxy->location(), s.response.report});
  }
  return first;
}

void MasterRun::TerminateQuietly() {
  if (terminated_) return;
  MasterResult ignored;
  absl::Status s = Terminate(&ignored);
  if (!s.ok()) spdlog::warn("terminating units after a failed run: {}", s.message());
}

absl::StatusOr<MasterResult> MasterRun::Run() {
  COSIMO_RETURN_IF_ERROR(Setup());
  absl::Status s = InitializeUnits();
  if (s.ok()) s = ResolveInitialOutputs();
  if (s.ok()) {
    const double expected_rows = adaptive_ ? 64.0 : std::ceil((stop_ - start_) / step_) + 1.0;
    result_.values.reserve(static_cast<size_t>(std::min(expected_rows, 1e7)) *
                           result_.columns.size());
    RecordRow(start_);
    s = TimeLoop();
  }
  if (!s.ok()) {
    TerminateQuietly();
    return s;
  }
  COSIMO_RETURN_IF_ERROR(Terminate(&result_));
  result_.iterations_mean =
      result_.steps_accepted == 0
          ? 0.0
          : static_cast<double>(accepted_iterations_) / static_cast<double>(result_.steps_accepted);
  return std::move(result_);
}

}  // namespace master

absl::StatusOr<MasterResult> RunMaster(const v1::Scenario& scenario,
                                       const std::vector<UnitProxy*>& units,
                                       MasterObserver* observer) {
  master::MasterRun run(scenario, units, observer);
  return run.Run();
}

}  // namespace cosimo::orchestrator
