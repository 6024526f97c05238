#include "cosimo/ssp/ssp_import.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <pugixml.hpp>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "cosimo/fmi/fmu_experiment.h"
#include "ssp/src/ssp_experiment.h"
#include "ssp/src/ssp_files.h"
#include "ssp/src/ssp_values.h"

namespace cosimo::ssp {
namespace {

class Importer {
 public:
  Importer(SspSource& source, const SspImportOptions& options, Staging* staging, SspImport* out)
      : source_(source), options_(options), staging_(staging), out_(out) {}

  absl::Status Run() {
    ssd_.name = source_.ssd_name();
    absl::StatusOr<std::string> text = source_.Read(ssd_.name);
    if (!text.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("SSP: no ", ssd_.name, ": ", text.status().message()));
    }
    ssd_.text = *std::move(text);
    if (absl::Status s = ParseXml(&ssd_); !s.ok()) return s;
    const pugi::xml_node root = ssd_.doc.document_element();
    if (std::strcmp(LocalName(root), "SystemStructureDescription") != 0) {
      return absl::InvalidArgumentError(absl::StrCat(ssd_.Where(root), ": the root element is '",
                                                     root.name(),
                                                     "', not ssd:SystemStructureDescription"));
    }
    const pugi::xml_node system = Child(root, "System");
    if (!system) {
      return absl::InvalidArgumentError(absl::StrCat(ssd_.Where(root), ": no ssd:System"));
    }
    v1::Scenario& scenario = out_->scenario;
    scenario.set_name(root.attribute("name") ? root.attribute("name").value()
                                             : system.attribute("name").value());
    if (absl::Status s = Experiment(ssd_, root, options_, &out_->scenario); !s.ok()) {
      problems_.Add(s);
    }
    Elements(system, "");
    if (out_->scenario.units_size() == 0 && problems_.empty()) {
      problems_.Invalid(absl::StrCat(ssd_.Where(system), ": the system has no components"));
    }
    // The systems' bindings once every connection is known (a value bound to a system connector
    // flows along them), deepest first: "bindings at a system level take precedence over
    // bindings at a sub-system or component level" (SSP 2.0 section 5.2.3).
    for (const auto& [node, path] : nested_first_) Bindings(ssd_, node, nullptr, path);
    ResolveConnections();
    if (!problems_.empty()) return problems_.ToStatus();
    if (absl::Status s = staging_->Commit(); !s.ok()) return s;  // the system is accepted
    Algorithm(root, system, options_, out_);
    return absl::OkStatus();
  }

 private:
  // The elements of the system at `path` ("" for the top one, else "sub." and so on): FMU
  // components become units, nested systems are flattened into their components.
  void Elements(const pugi::xml_node& system, const std::string& path, int depth = 0) {
    if (depth > kMaxSystemDepth) {  // before the recursion overflows the stack (issue 41)
      problems_.Invalid(absl::StrCat(ssd_.Where(system), ": system '", path, "' is nested ", depth,
                                     " levels deep; the limit is ", kMaxSystemDepth));
      return;
    }
    systems_.insert(path);
    for (pugi::xml_node connector : Children(Child(system, "Connectors"), "Connector")) {
      kinds_[{path, connector.attribute("name").value()}] = connector.attribute("kind").value();
    }
    for (pugi::xml_node element : Child(system, "Elements").children()) {
      if (element.type() != pugi::node_element) continue;
      const std::string kind = LocalName(element);
      const std::string name = element.attribute("name").value();
      const std::string full = Join(path, name);
      if (kind == "System") {
        Elements(element, full, depth + 1);
        continue;
      }
      if (kind != "Component") {
        problems_.Unsupported(absl::StrCat(ssd_.Where(element), ": element '", name,
                                           "' is an ssd:", kind,
                                           "; only FMU components and systems are supported"));
        continue;
      }
      if (absl::Status s = Component(element, name, full); !s.ok()) problems_.Add(s);
    }
    Connections(system, path);
    nested_first_.emplace_back(system, path);
  }

  static std::string Join(const std::string& path, const std::string& name) {
    return path.empty() ? name : absl::StrCat(path, ".", name);
  }

  absl::Status Component(const pugi::xml_node& element, const std::string& name,
                         const std::string& full) {
    const std::string type = element.attribute("type").value();
    const std::string source = element.attribute("source").value();
    if (!type.empty() && type != "application/x-fmu-sharedlibrary") {
      return absl::UnimplementedError(absl::StrCat(ssd_.Where(element), ": component '", name,
                                                   "' has type '", type,
                                                   "'; only FMUs are supported"));
    }
    if (source.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(ssd_.Where(element), ": component '", name, "' has no source"));
    }
    const std::string unit = UnitName(full);
    const auto& units = out_->scenario.units();
    if (std::any_of(units.begin(), units.end(),
                    [&](const v1::Unit& u) { return u.name() == unit; })) {
      return absl::InvalidArgumentError(absl::StrCat(ssd_.Where(element), ": component '", full,
                                                     "' makes the unit name '", unit,
                                                     "', which another component has already"));
    }
    absl::StatusOr<std::string> path = SourcePath(source);
    const std::string entry = path.value_or("");
    if (path.ok()) path = source_.Materialize(*path, staging_);
    if (!path.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(ssd_.Where(element), ": component '", name,
                                                     "', source '", source,
                                                     "': ", path.status().message()));
    }
    // An FMU runs as Model Exchange when its unit has a solver (docs/fmi.md).
    const std::string implementation = element.attribute("implementation").value();
    if (!implementation.empty() && implementation != "CoSimulation" && implementation != "any" &&
        implementation != "ModelExchange") {
      return absl::InvalidArgumentError(absl::StrCat(ssd_.Where(element), ": component '", name,
                                                     "' has implementation '", implementation,
                                                     "' (CoSimulation, ModelExchange or any)"));
    }
    if (unit != full) {
      out_->notices.push_back(absl::StrCat("component '", full, "' is unit '", unit,
                                           "' (unit names are [A-Za-z0-9_])"));
    }
    v1::Unit* u = out_->scenario.add_units();
    u->set_name(unit);
    u->mutable_fmu()->set_path(*path);
    readable_[unit] = *path;  // an archive's FMU: staged until the import is accepted
    bool fresh = false;
    if (source_.archived()) {
      absl::StatusOr<std::filesystem::path> staged = staging_->FileFor(entry, &fresh);
      if (staged.ok()) readable_[unit] = staged->string();
    }
    if (implementation == "ModelExchange") {
      u->mutable_solver()->set_method(v1::Solver::CVODE);
      out_->notices.push_back(absl::StrCat("component '", full,
                                           "' runs as Model Exchange, integrated by CVODE "
                                           "(edit its solver to change)"));
    }
    element_units_[full] = u;
    for (pugi::xml_node connector : Children(Child(element, "Connectors"), "Connector")) {
      kinds_[{full, connector.attribute("name").value()}] = connector.attribute("kind").value();
    }
    Bindings(ssd_, element, u, full);
    return absl::OkStatus();
  }

  // A connector: (element path, connector name); the element path of a system's own connector
  // is the system's path.
  using Port = std::pair<std::string, std::string>;
  struct Edge {
    Port from, to;
    Transform transform;
    std::string where;  // "file line N: connection a.x -> b.u"
  };

  // The ssd:ParameterBindings of `owner`; `unit` null for a system (at `path`), whose parameter
  // names are "<component>.<variable>" relative to it.
  void Bindings(const XmlFile& file, const pugi::xml_node& owner, v1::Unit* unit,
                const std::string& path) {
    for (pugi::xml_node binding : Children(Child(owner, "ParameterBindings"), "ParameterBinding")) {
      Mapping mapping;
      if (pugi::xml_node m = Child(binding, "ParameterMapping")) {
        absl::StatusOr<Mapping> read = ReadMapping(source_, file, m);
        if (!read.ok()) {
          problems_.Add(read.status());
          continue;
        }
        mapping = *std::move(read);
      }
      const std::string prefix = binding.attribute("prefix").value();
      const std::string source = binding.attribute("source").value();
      if (!source.empty()) {
        if (source[0] == '#') {
          problems_.Unsupported(absl::StrCat(file.Where(binding), ": parameter binding source '",
                                             source, "' (a fragment reference) is not supported"));
          continue;
        }
        XmlFile ssv;
        ssv.name = source;
        absl::StatusOr<std::string> text = SourcePath(source);
        if (text.ok()) text = source_.Read(*text);
        if (!text.ok()) {
          problems_.Invalid(absl::StrCat(file.Where(binding), ": parameter binding source '",
                                         source, "': ", text.status().message()));
          continue;
        }
        ssv.text = *std::move(text);
        if (absl::Status s = ParseXml(&ssv); !s.ok()) {
          problems_.Add(s);
          continue;
        }
        ParameterSet(ssv, ssv.doc.document_element(), unit, path, prefix, mapping);
        continue;
      }
      const pugi::xml_node set = Child(Child(binding, "ParameterValues"), "ParameterSet");
      if (!set) continue;
      ParameterSet(file, set, unit, path, prefix, mapping);
    }
  }

  void ParameterSet(const XmlFile& file, const pugi::xml_node& set, v1::Unit* unit,
                    const std::string& path, const std::string& prefix, const Mapping& mapping) {
    if (std::strcmp(LocalName(set), "ParameterSet") != 0) {
      problems_.Invalid(
          absl::StrCat(file.Where(set), ": expected ssv:ParameterSet, found '", set.name(), "'"));
      return;
    }
    for (pugi::xml_node parameter : Children(Child(set, "Parameters"), "Parameter")) {
      const std::string given = parameter.attribute("name").value();
      absl::StatusOr<google::protobuf::Value> value = ParameterValue(file, parameter);
      if (!value.ok()) {
        problems_.Add(value.status());
        continue;
      }
      // A mapped parameter goes to the entry's target; others keep their name, with the prefix.
      std::string name = absl::StrCat(prefix, given);
      if (auto m = mapping.find(given); m != mapping.end()) {
        name = m->second.target;
        if (value->kind_case() == google::protobuf::Value::kNumberValue) {
          value->set_number_value(m->second.transform.factor * value->number_value() +
                                  m->second.transform.offset);
        }
      }
      if (unit != nullptr) {
        (*unit->mutable_parameters())[name] = *std::move(value);
        continue;
      }
      SystemParameter(file.Where(parameter), path, name, *value);
    }
  }

  // A value bound on the system at `path` to `name`, a hierarchical name (SSP 2.0 section 5.2.3):
  // "Any variables of the system exposed through connectors of the system have the name of the
  // connector as their name", and an element's variables are "<element>.<its name>". A
  // component's variable gets the value; a system connector passes it on along its connections
  // (SystemFlow). Every variable the name matches gets it (the standard's "punning"); a name that
  // matches none "is ignored" (with a warning).
  void SystemParameter(const std::string& where, const std::string& path, const std::string& name,
                       const google::protobuf::Value& value) {
    bool matched = false;
    std::vector<Port> pending = {{path, name}};  // (system path, name relative to it)
    while (!pending.empty()) {
      const auto [system, rest] = pending.back();
      pending.pop_back();
      if (kinds_.count({system, rest}) != 0 && systems_.count(system) != 0) {
        matched = true;
        std::set<Port> seen;
        if (SystemFlow({system, rest}, value, &seen) == 0) {
          out_->notices.push_back(absl::StrCat(
              "warning: ", where, ": system parameter '", name, "' is bound to connector '", rest,
              "' of ", SystemName(system),
              ", which feeds no component variable (no connection leaves it): the value is "
              "not used"));
        }
      }
      for (size_t dot = rest.find('.'); dot != std::string::npos; dot = rest.find('.', dot + 1)) {
        const std::string element = Join(system, rest.substr(0, dot));
        if (auto it = element_units_.find(element); it != element_units_.end()) {
          (*it->second->mutable_parameters())[rest.substr(dot + 1)] = value;
          matched = true;
        } else if (systems_.count(element) != 0) {
          pending.emplace_back(element, rest.substr(dot + 1));
        }
      }
    }
    if (!matched) {
      out_->notices.push_back(
          absl::StrCat("warning: ", where, ": system parameter '", name, "' names no connector of ",
                       SystemName(path),
                       " and no \"<component>.<variable>\" in it: ignored (SSP 2.0 section 5.2.3: "
                       "\"Otherwise that parameter value is ignored\")"));
    }
  }

  // Passes a value bound to the system connector `port` along every connection that leaves it
  // ("All kinds of system connectors can be parameterized", SSP 2.0 section 5.2.3): into the
  // parameters of the components it reaches (an input so bound starts from the value), through
  // the connectors of nested systems, each connection's ssc:LinearTransformation applied to a
  // number. Returns how many component variables it reached.
  int SystemFlow(const Port& port, const google::protobuf::Value& value, std::set<Port>* seen) {
    int reached = 0;
    // A chain of system connectors can be as long as the input makes it: no recursion.
    std::vector<std::pair<Port, google::protobuf::Value>> pending = {{port, value}};
    while (!pending.empty()) {
      auto [from, carried] = std::move(pending.back());
      pending.pop_back();
      if (!seen->insert(from).second) continue;  // a loop of system connectors
      bound_.insert(from);
      for (const Edge& edge : edges_) {
        if (edge.from != from) continue;
        google::protobuf::Value passed = carried;
        if (passed.kind_case() == google::protobuf::Value::kNumberValue) {
          passed.set_number_value(edge.transform.factor * passed.number_value() +
                                  edge.transform.offset);
        }
        if (auto it = element_units_.find(edge.to.first); it != element_units_.end()) {
          (*it->second->mutable_parameters())[edge.to.second] = std::move(passed);
          ++reached;
        } else {
          pending.emplace_back(edge.to, std::move(passed));
        }
      }
    }
    return reached;
  }

  std::string Kind(const Port& p) const {
    const auto it = kinds_.find(p);
    return it == kinds_.end() ? "" : it->second;
  }

  static std::string SystemName(const std::string& path) {
    return path.empty() ? "the top system" : absl::StrCat("system '", path, "'");
  }

  void Connections(const pugi::xml_node& system, const std::string& path) {
    for (pugi::xml_node c : Children(Child(system, "Connections"), "Connection")) {
      std::string start_element = c.attribute("startElement").value();
      std::string start = c.attribute("startConnector").value();
      std::string end_element = c.attribute("endElement").value();
      std::string end = c.attribute("endConnector").value();
      const std::string what =
          absl::StrCat(start_element.empty() ? "(system)" : start_element, ".", start, " -> ",
                       end_element.empty() ? "(system)" : end_element, ".", end);
      Edge edge;
      edge.where = absl::StrCat(ssd_.Where(c), ": connection ", what);
      bool ok = true;
      for (pugi::xml_node child : c.children()) {
        if (child.type() != pugi::node_element) continue;
        const std::string kind = LocalName(child);
        if (kind == "Annotations" || kind == "ConnectionGeometry") continue;  // drawing only
        if (kind == "LinearTransformation") {
          absl::StatusOr<Transform> transform = ReadTransform(ssd_, child);
          if (transform.ok()) {
            edge.transform = *transform;
          } else {
            problems_.Add(transform.status());
            ok = false;
          }
          continue;
        }
        if (IsMappingTransformation(kind)) {
          absl::StatusOr<ValueMapping> mapping = ReadValueMapping(ssd_, child);
          if (mapping.ok()) edge.transform.mapping = *std::move(mapping);
          if (!mapping.ok()) problems_.Add(mapping.status());
          ok = ok && mapping.ok();
          continue;
        }
        problems_.Unsupported(
            absl::StrCat(ssd_.Where(child), ": connection ", what, ": ", child.name(),
                         " is not supported (ssc:LinearTransformation and the Boolean, Integer and "
                         "Enumeration mapping transformations are)"));
        ok = false;
      }
      const Port from{start_element.empty() ? path : Join(path, start_element), start};
      const Port to{end_element.empty() ? path : Join(path, end_element), end};
      for (const Port* p : {&from, &to}) {
        if (element_units_.count(p->first) == 0 && systems_.count(p->first) == 0) {
          problems_.Invalid(absl::StrCat(edge.where, ": no component '",
                                         p == &from ? start_element : end_element, "'"));
          ok = false;
        }
      }
      if (!ok) continue;
      edge.from = from;
      edge.to = to;
      // "the terms start and end ... do not denote directionality of the data flow" (SSP 2.0
      // section 5.3.2): a connection the connectors' kinds say runs end -> start is turned round.
      if (!Flows(path, from, to) && Flows(path, to, from)) std::swap(edge.from, edge.to);
      edges_.push_back(edge);
    }
  }

  // Whether data can flow from `a` to `b` in a connection of the system at `path`, by the kinds
  // of the two connectors and whether each is the system's own or an element's (SSP 2.0 section
  // 5.3.2.1, Allowed Connections, in short: a system's own input or parameter connector, or an
  // element's output, calculatedParameter, constant, local or inout connector sends; the others
  // receive). A connector without a kind, or of kind unspecified, does either ("a wild-card
  // role").
  bool Flows(const std::string& path, const Port& a, const Port& b) const {
    return RoleOf(path, a) != kReceives && RoleOf(path, b) != kSends;
  }
  enum Role { kSends, kReceives, kEither };
  Role RoleOf(const std::string& path, const Port& p) const {
    const std::string kind = Kind(p);
    if (kind.empty() || kind == "unspecified") return kEither;
    const bool inward = kind == "input" || kind == "parameter" || kind == "structuralParameter";
    if (p.first == path) return inward ? kSends : kReceives;  // the system's own, from inside
    if (kind == "inout") return kEither;
    return inward ? kReceives : kSends;
  }

  // "port" as the SSD names it: "msd2.F", "sub.force", "(system).position".
  static std::string PortName(const Port& p) {
    return absl::StrCat(p.first.empty() ? "(system)" : p.first, ".", p.second);
  }

  // Every component input fed through any chain of system connectors becomes one connection
  // from the component output at the chain's start, with the chain's transformations composed.
  // The top system's outputs are recorded; its inputs feed nothing (a notice says so, unless a
  // parameter binding gives the chain its value).
  void ResolveConnections() {
    std::map<Port, size_t> incoming;
    for (size_t i = 0; i < edges_.size(); ++i) {
      auto [it, inserted] = incoming.emplace(edges_[i].to, i);
      if (!inserted) {
        problems_.Invalid(absl::StrCat(
            edges_[i].where, ": '", PortName(edges_[i].to), "' is already fed by ",
            edges_[it->second].where,
            "; SSP 2.0 section 5.3.2.1 (Allowed Connections) forbids this: \"Implementations "
            "MUST ensure that data flow is specified unambiguously, including ensuring that not "
            "multiple connections with inbound data flow enter into a connector signifying an "
            "input, inout, parameter, or structuralParameter connector of an element, or a "
            "local, constant, calculatedParameter, or output connector of an enclosing "
            "system\""));
      }
    }
    // Walks back from `last` to the chain's start: a component's connector, or a system
    // connector that nothing feeds (or a loop of system connectors). `bound`: a parameter
    // binding gave a system connector on the way its value.
    auto trace = [&](const Edge& last, Transform* total, bool* bound) -> Port {
      const Edge* e = &last;
      for (size_t guard = 0; guard <= edges_.size(); ++guard) {
        ComposeBefore(e->transform, total);
        if (bound_.count(e->from) != 0) *bound = true;
        if (element_units_.count(e->from.first) != 0) return e->from;
        auto it = incoming.find(e->from);
        if (it == incoming.end()) return e->from;
        e = &edges_[it->second];
      }
      return e->from;
    };
    auto name = [&](const Port& p) {
      return absl::StrCat(element_units_.at(p.first)->name(), ".", p.second);
    };
    for (const Edge& edge : edges_) {
      const bool to_unit = element_units_.count(edge.to.first) != 0;
      const bool to_top_output = edge.to.first.empty() && Kind(edge.to) != "input";
      if (!to_unit && !to_top_output) continue;  // inside a chain
      Transform total;
      bool bound = false;
      const Port start = trace(edge, &total, &bound);
      const std::optional<Port> source =
          element_units_.count(start.first) != 0 ? std::optional<Port>(start) : std::nullopt;
      if (!source) {
        if (to_unit && !bound) {
          out_->notices.push_back(absl::StrCat(
              Kind(edge.to).empty() ? "input" : Kind(edge.to), " ", name(edge.to),
              " is fed by system connector '", PortName(start),
              "', which nothing feeds and no parameter binding sets: it keeps its start value"));
        }
        continue;
      }
      if (to_top_output) {
        const std::string variable = name(*source);
        auto& record = *out_->scenario.mutable_record();
        if (std::find(record.begin(), record.end(), variable) == record.end()) {
          out_->scenario.add_record(variable);
        }
        out_->notices.push_back(
            absl::StrCat("system output '", edge.to.second, "' is recorded as ", variable));
        if (total.factor != 1.0 || total.offset != 0.0 || total.mapping) {
          problems_.Unsupported(absl::StrCat(edge.where,
                                             ": a transformation on the way to a "
                                             "system output is not supported"));
        }
        continue;
      }
      v1::Connection* connection = out_->scenario.add_connections();
      connection->set_from(name(*source));
      connection->set_to(name(edge.to));
      if (total.factor != 1.0) connection->set_factor(total.factor);
      if (total.offset != 0.0) connection->set_offset(total.offset);
      if (total.mapping) Map(edge, total, *source, connection);
    }
  }

  // A connection's mapping transformation into Connection.map; Enumeration items resolved with
  // the two FMUs' model descriptions.
  void Map(const Edge& edge, const Transform& total, const Port& source, v1::Connection* c) {
    if (total.mixed) {
      problems_.Unsupported(absl::StrCat(edge.where,
                                         ": a mapping transformation composed with another "
                                         "transformation (through system connectors) is not "
                                         "supported"));
      return;
    }
    const auto end = [&](const Port& p, const std::string& scenario_name) {
      const v1::Unit* unit = element_units_.at(p.first);
      auto it = fmus_.try_emplace(unit->name()).first;
      if (!it->second && total.mapping->kind == "Enumeration") {
        absl::StatusOr<FmuExperiment> read = ReadFmuExperiment(readable_[unit->name()]);
        if (read.ok()) it->second = *std::move(read);
      }
      return MappedEnd{scenario_name, it->second ? &*it->second : nullptr, p.second};
    };
    absl::StatusOr<std::vector<v1::MapEntry>> entries =
        ResolveValueMapping(*total.mapping, end(source, c->from()), end(edge.to, c->to()));
    if (!entries.ok()) {
      problems_.Add(entries.status());
      return;
    }
    for (v1::MapEntry& e : *entries) *c->add_map() = std::move(e);
  }

  SspSource& source_;
  const SspImportOptions& options_;
  Staging* staging_;
  SspImport* out_;
  XmlFile ssd_;
  Problems problems_;
  std::map<std::string, v1::Unit*> element_units_;  // component path ("sub.comp") -> its unit
  std::set<std::string> systems_;                   // system paths ("" for the top one)
  std::map<Port, std::string> kinds_;               // declared connectors -> their kinds
  std::vector<Edge> edges_;
  std::set<Port> bound_;  // system connectors a parameter binding gave a value
  std::vector<std::pair<pugi::xml_node, std::string>> nested_first_;  // systems, post-order
  std::map<std::string, std::string> readable_;  // unit -> where its FMU can be read now
  std::map<std::string, std::optional<FmuExperiment>> fmus_;  // unit -> its description, read
};

}  // namespace

absl::StatusOr<SspImport> ImportSsp(const std::string& path, const SspImportOptions& options) {
  absl::StatusOr<SspSource> source = SspSource::Open(path, options.limits);
  if (!source.ok()) return source.status();
  if (source->archived() && options.resources_dir.empty()) {
    return absl::InvalidArgumentError("SSP import: no folder to extract the FMUs to");
  }
  SspImport out;
  Staging staging(options.resources_dir);
  Importer importer(*source, options, &staging, &out);
  if (absl::Status s = importer.Run(); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("SSP '", path, "': ", s.message()));
  }
  return out;
}

}  // namespace cosimo::ssp
