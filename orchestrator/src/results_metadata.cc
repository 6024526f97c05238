#include "orchestrator/src/results_metadata.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <utility>

#include "cosimo/common/digest.h"
#include "cosimo/common/scenario.h"
#include "cosimo/common/version.h"

namespace cosimo::orchestrator {

std::string DeterministicDigest(const google::protobuf::Message& message) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
  }
  return DigestOf(bytes);
}

std::vector<v1::RecordedVariable> RecordedVariables(
    const v1::Scenario& scenario, const ResultTable& table,
    const std::vector<const UnitDescription*>& descriptions) {
  std::vector<v1::RecordedVariable> variables;
  for (size_t c = 1; c < table.columns.size(); ++c) {
    v1::RecordedVariable& v = variables.emplace_back();
    v.set_name(table.columns[c]);
    for (int u = 0; u < scenario.units_size() && static_cast<size_t>(u) < descriptions.size();
         ++u) {
      const std::string prefix = scenario.units(u).name() + ".";
      if (table.columns[c].rfind(prefix, 0) != 0) continue;
      const std::string name = table.columns[c].substr(prefix.size());
      const UnitDescription& d = *descriptions[static_cast<size_t>(u)];
      const VariableInfo* found = nullptr;
      for (const auto* list : {&d.outputs, &d.inputs, &d.others}) {
        for (const VariableInfo& info : *list) {
          if (found == nullptr && info.IsCalled(name)) found = &info;
        }
      }
      if (found != nullptr) {
        v.set_unit(found->unit);
        v.set_causality(CausalityName(found->causality));
        v.set_type(ValueTypeName(found->type));
      }
    }
  }
  return variables;
}

v1::ResultsMetadata BuildResultsMetadata(const v1::Scenario& scenario,
                                         const master::MasterResult& result,
                                         std::vector<v1::RecordedVariable> variables,
                                         const RunTimes& times) {
  v1::ResultsMetadata meta;
  meta.set_scenario_digest(DeterministicDigest(scenario));
  for (const v1::Unit& unit : scenario.units()) {
    bool first = true;
    for (const UnitArtifactRef& a : UnitArtifacts(unit)) {
      if (a.digest.empty()) continue;
      (*meta.mutable_artifact_digests())[first ? unit.name() : unit.name() + "." + a.field] =
          a.digest;
      first = false;
    }
  }
  for (const master::UnitSummary& u : result.units) {
    v1::UnitReport* r = meta.add_units();
    r->set_name(u.name);
    r->set_mode(UnitModeName(u.report.mode));
    r->set_real_integrations(u.report.real_integrations);
    r->set_estimates(u.report.estimates);
    r->set_worker(u.location.worker);
    r->set_host(u.location.host);
  }
  meta.set_steps_accepted(result.steps_accepted);
  meta.set_steps_rejected(result.steps_rejected);
  meta.set_iterations_mean(result.iterations_mean);
  meta.set_iterations_max(result.iterations_max);
  meta.set_algorithm(v1::Algorithm::Kind_Name(scenario.algorithm().kind()));
  meta.set_start_time(scenario.start_time());
  meta.set_stop_time(scenario.stop_time());
  meta.set_started_unix_ms(times.started_unix_ms);
  meta.set_finished_unix_ms(times.finished_unix_ms);
  meta.set_wall_seconds(times.wall_seconds);
  meta.set_cosimo_version(kVersion);
  for (v1::RecordedVariable& v : variables) *meta.add_variables() = std::move(v);
  return meta;
}

}  // namespace cosimo::orchestrator
