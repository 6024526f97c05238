#include "units/src/hybrid/dense_net.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace cosimo::units {
namespace {

// splitmix64: a fixed generator, so initial weights do not depend on the standard library.
uint64_t Next(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Uniform in [-1, 1).
double Uniform(uint64_t* state) { return static_cast<double>(Next(state) >> 11) * 0x1.0p-52 - 1.0; }

DenseNet::Activation FromSpec(v1::DenseLayer::Activation a) {
  switch (a) {
    case v1::DenseLayer::RELU:
      return DenseNet::Activation::kRelu;
    case v1::DenseLayer::IDENTITY:
      return DenseNet::Activation::kIdentity;
    default:
      return DenseNet::Activation::kTanh;
  }
}

void Activate(DenseNet::Activation act, const Eigen::VectorXd& a, Eigen::VectorXd* h) {
  switch (act) {
    case DenseNet::Activation::kTanh:
      *h = a.array().tanh().matrix();
      break;
    case DenseNet::Activation::kRelu:
      *h = a.cwiseMax(0.0);
      break;
    case DenseNet::Activation::kIdentity:
      *h = a;
      break;
  }
}

// d act / d a at a (h = act(a)).
double Slope(DenseNet::Activation act, double a, double h) {
  switch (act) {
    case DenseNet::Activation::kTanh:
      return 1.0 - h * h;
    case DenseNet::Activation::kRelu:
      return a > 0.0 ? 1.0 : 0.0;
    case DenseNet::Activation::kIdentity:
      break;
  }
  return 1.0;
}

}  // namespace

DenseNet::DenseNet(int dim, const v1::DenseNetwork& spec, uint64_t seed) : dim_(dim) {
  if (spec.layers().empty()) return;
  uint64_t state = seed;
  int in = dim;
  for (const v1::DenseLayer& l : spec.layers()) {
    Layer layer;
    layer.weight.resize(l.size(), in);
    const double limit = std::sqrt(6.0 / (in + l.size()));  // Glorot uniform
    for (Eigen::Index r = 0; r < layer.weight.rows(); ++r) {
      for (Eigen::Index c = 0; c < layer.weight.cols(); ++c) {
        layer.weight(r, c) = limit * Uniform(&state);
      }
    }
    layer.bias = Eigen::VectorXd::Zero(l.size());
    layer.activation = FromSpec(l.activation());
    layers_.push_back(std::move(layer));
    in = l.size();
  }
  Layer last;
  last.weight = Eigen::MatrixXd::Zero(dim, in);
  last.bias = Eigen::VectorXd::Zero(dim);
  last.activation = Activation::kIdentity;
  layers_.push_back(std::move(last));
  for (const Layer& layer : layers_) {
    num_parameters_ += static_cast<int>(layer.weight.size() + layer.bias.size());
  }
  h_.resize(layers_.size() + 1);
  a_.resize(layers_.size());
}

Eigen::VectorXd DenseNet::Parameters() const {
  Eigen::VectorXd p(num_parameters_);
  Eigen::Index k = 0;
  for (const Layer& layer : layers_) {
    for (Eigen::Index r = 0; r < layer.weight.rows(); ++r) {
      p.segment(k, layer.weight.cols()) = layer.weight.row(r).transpose();
      k += layer.weight.cols();
    }
    p.segment(k, layer.bias.size()) = layer.bias;
    k += layer.bias.size();
  }
  return p;
}

void DenseNet::SetParameters(const Eigen::Ref<const Eigen::VectorXd>& p) {
  Eigen::Index k = 0;
  for (Layer& layer : layers_) {
    for (Eigen::Index r = 0; r < layer.weight.rows(); ++r) {
      layer.weight.row(r) = p.segment(k, layer.weight.cols()).transpose();
      k += layer.weight.cols();
    }
    layer.bias = p.segment(k, layer.bias.size());
    k += layer.bias.size();
  }
}

void DenseNet::Forward(const Eigen::Ref<const Eigen::VectorXd>& z,
                       Eigen::Ref<Eigen::VectorXd> y) const {
  if (layers_.empty()) {
    y = z;
    return;
  }
  h_[0] = z;
  for (size_t l = 0; l < layers_.size(); ++l) {
    a_[l].noalias() = layers_[l].weight * h_[l];
    a_[l] += layers_[l].bias;
    Activate(layers_[l].activation, a_[l], &h_[l + 1]);
  }
  y = z + h_.back();
}

void DenseNet::Jacobians(Eigen::MatrixXd* dy_dz, Eigen::MatrixXd* dy_dp) const {
  dy_dz->setIdentity(dim_, dim_);
  if (dy_dp != nullptr) dy_dp->resize(dim_, num_parameters_);
  if (layers_.empty()) return;
  // g_ = dy / d h[l + 1], from the last layer down; ga_ = dy / d a[l].
  g_.setIdentity(dim_, dim_);
  Eigen::Index end = num_parameters_;
  for (size_t l = layers_.size(); l-- > 0;) {
    const Layer& layer = layers_[l];
    ga_ = g_;
    if (layer.activation != Activation::kIdentity) {
      for (Eigen::Index r = 0; r < ga_.cols(); ++r) {
        ga_.col(r) *= Slope(layer.activation, a_[l][r], h_[l + 1][r]);
      }
    }
    const Eigen::Index rows = layer.weight.rows(), cols = layer.weight.cols();
    const Eigen::Index begin = end - rows * cols - rows;
    if (dy_dp != nullptr) {
      for (Eigen::Index r = 0; r < rows; ++r) {
        dy_dp->middleCols(begin + r * cols, cols).noalias() = ga_.col(r) * h_[l].transpose();
      }
      dy_dp->middleCols(begin + rows * cols, rows) = ga_;
    }
    end = begin;
    g_.noalias() = ga_ * layer.weight;
  }
  *dy_dz += g_;
}

absl::Status DenseNet::FromProto(const google::protobuf::RepeatedPtrField<v1::LayerWeights>& layers,
                                 const std::string& field) {
  if (layers.size() != static_cast<int>(layers_.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat("weights file: ", field, " has ", layers.size(), " layers, the scenario's ",
                     field, " network has ", layers_.size(),
                     layers_.empty() ? "" : " (its hidden layers and the last one)"));
  }
  for (int l = 0; l < layers.size(); ++l) {
    const v1::LayerWeights& w = layers[l];
    Layer& layer = layers_[static_cast<size_t>(l)];
    const std::string name = absl::StrCat("weights file: ", field, "[", l, "]");
    if (w.rows() != layer.weight.rows() || w.cols() != layer.weight.cols()) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, " is ", w.rows(), " x ", w.cols(), ", the scenario's network needs ",
                       layer.weight.rows(), " x ", layer.weight.cols()));
    }
    if (w.weight_size() != w.rows() * w.cols() || w.bias_size() != w.rows()) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, " has ", w.weight_size(), " weights and ", w.bias_size(), " biases for ", w.rows(),
          " x ", w.cols(), " (", w.rows() * w.cols(), " and ", w.rows(), ")"));
    }
    for (double v : w.weight()) {
      if (!std::isfinite(v))
        return absl::InvalidArgumentError(name + ".weight holds a non-finite value");
    }
    for (double v : w.bias()) {
      if (!std::isfinite(v))
        return absl::InvalidArgumentError(name + ".bias holds a non-finite value");
    }
    for (int r = 0; r < w.rows(); ++r) {
      for (int c = 0; c < w.cols(); ++c) layer.weight(r, c) = w.weight(r * w.cols() + c);
      layer.bias[r] = w.bias(r);
    }
  }
  return absl::OkStatus();
}

void DenseNet::ToProto(google::protobuf::RepeatedPtrField<v1::LayerWeights>* layers) const {
  layers->Clear();
  for (const Layer& layer : layers_) {
    v1::LayerWeights* w = layers->Add();
    w->set_rows(static_cast<int>(layer.weight.rows()));
    w->set_cols(static_cast<int>(layer.weight.cols()));
    for (Eigen::Index r = 0; r < layer.weight.rows(); ++r) {
      for (Eigen::Index c = 0; c < layer.weight.cols(); ++c) w->add_weight(layer.weight(r, c));
    }
    for (Eigen::Index r = 0; r < layer.bias.size(); ++r) w->add_bias(layer.bias[r]);
  }
}

}  // namespace cosimo::units
