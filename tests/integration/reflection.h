// A server reflection call as grpcurl makes it (list_services). The reflection protos are not
// installed by Debian, so the call is made with a generic stub on raw bytes and the reply is
// decoded from the wire format (ServerReflectionResponse.list_services_response = 6, its
// repeated ServiceResponse service = 1, whose name = 1).
#pragma once

#include <google/protobuf/unknown_field_set.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>
#include <vector>

namespace cosimo::testing {

struct ReflectionReply {
  grpc::Status status;                // of the stream
  std::vector<std::string> services;  // the names listed, when it succeeded
};

inline ReflectionReply ListServicesByReflection(const std::shared_ptr<grpc::Channel>& channel) {
  grpc::GenericStub stub(channel);
  grpc::CompletionQueue cq;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  auto call = stub.PrepareCall(
      &context, "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", &cq);
  void* tag = nullptr;
  bool ok = false;
  // Each step waits for its own completion; a refused call fails its steps, then Finish says why.
  auto next = [&] {
    cq.Next(&tag, &ok);
    return ok;
  };
  ReflectionReply reply;
  call->StartCall(reinterpret_cast<void*>(1));
  std::string bytes;
  if (next()) {
    const std::string request("\x3a\x00", 2);  // field 7 (list_services), empty string
    grpc::Slice slice(request);
    grpc::ByteBuffer out(&slice, 1);
    call->Write(out, reinterpret_cast<void*>(2));
    grpc::ByteBuffer in;
    if (next()) {
      call->Read(&in, reinterpret_cast<void*>(3));
      std::vector<grpc::Slice> slices;
      if (next() && in.Dump(&slices).ok()) {
        for (const grpc::Slice& s : slices) {
          bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
        }
      }
      call->WritesDone(reinterpret_cast<void*>(4));
      next();
    }
  }
  call->Finish(&reply.status, reinterpret_cast<void*>(5));
  next();

  google::protobuf::UnknownFieldSet response;
  if (!reply.status.ok() || !response.ParseFromString(bytes)) return reply;
  for (int i = 0; i < response.field_count(); ++i) {
    if (response.field(i).number() != 6) continue;
    google::protobuf::UnknownFieldSet list;
    if (!list.ParseFromString(response.field(i).length_delimited())) continue;
    for (int j = 0; j < list.field_count(); ++j) {
      google::protobuf::UnknownFieldSet service;
      if (service.ParseFromString(list.field(j).length_delimited()) && service.field_count() > 0) {
        reply.services.push_back(service.field(0).length_delimited());
      }
    }
  }
  return reply;
}

}  // namespace cosimo::testing
