// A residual dense network z -> z + MLP(z) on vectors of one size (the hybrid unit's top and
// bottom networks, docs/hybrid.md). The MLP is the scenario's hidden layers followed by a
// last layer of identity activation back to the size of z. Initialised as the paper's NeuralFMU:
// hidden layers Glorot-uniform from a seed, the last layer zero, so the untrained network is the
// identity exactly. A network without layers is the identity and has no parameters.
//
// Parameters are one vector: per layer, W (rows x cols, row-major), then b. Forward keeps the
// intermediate values in the network (mutable scratch), so Jacobians(), which needs them, follows
// the Forward it refers to. Not thread safe (one network per model).
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cosimo/v1/scenario.pb.h"

namespace cosimo::units {

class DenseNet {
 public:
  enum class Activation { kTanh, kRelu, kIdentity };
  struct Layer {
    Eigen::MatrixXd weight;  // outputs x inputs
    Eigen::VectorXd bias;
    Activation activation = Activation::kIdentity;
  };

  DenseNet() = default;
  // The network of `spec` on vectors of size `dim`, initialised from `seed` (splitmix64, so the
  // same seed gives the same weights on every machine).
  DenseNet(int dim, const v1::DenseNetwork& spec, uint64_t seed);

  int dim() const { return dim_; }
  bool identity() const { return layers_.empty(); }
  int num_parameters() const { return num_parameters_; }
  const std::vector<Layer>& layers() const { return layers_; }

  Eigen::VectorXd Parameters() const;
  // `p` has num_parameters() values.
  void SetParameters(const Eigen::Ref<const Eigen::VectorXd>& p);

  // y = z + MLP(z); keeps what Jacobians() needs.
  void Forward(const Eigen::Ref<const Eigen::VectorXd>& z, Eigen::Ref<Eigen::VectorXd> y) const;
  // At the last Forward's z: dy/dz (dim x dim) and, when `dy_dp` is not null, dy/dp
  // (dim x num_parameters()).
  void Jacobians(Eigen::MatrixXd* dy_dz, Eigen::MatrixXd* dy_dp) const;

  // Weights from / to the weights file's layers. Errors name `field` ("top", "bottom"), the
  // layer and the sizes expected and found.
  [[nodiscard]] absl::Status FromProto(
      const google::protobuf::RepeatedPtrField<v1::LayerWeights>& layers, const std::string& field);
  void ToProto(google::protobuf::RepeatedPtrField<v1::LayerWeights>* layers) const;

 private:
  int dim_ = 0;
  int num_parameters_ = 0;
  std::vector<Layer> layers_;
  // Scratch of Forward: inputs of each layer (h[0] = z) and pre-activations.
  mutable std::vector<Eigen::VectorXd> h_, a_;
  mutable Eigen::MatrixXd g_, ga_;
};

}  // namespace cosimo::units
