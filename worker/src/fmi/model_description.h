// The worker's FMI code names the model description types (cosimo/common/model_description.h,
// shared with the submit checks) without their namespace.
#pragma once

#include "cosimo/common/model_description.h"

namespace cosimo::worker::fmi {

using ::cosimo::fmi::FmiCausality;
using ::cosimo::fmi::FmiVersion;
using ::cosimo::fmi::Initial;
using ::cosimo::fmi::IsNumeric;
using ::cosimo::fmi::KindInfo;
using ::cosimo::fmi::kMaxArrayElements;
using ::cosimo::fmi::kMaxModelDescriptionBytes;
using ::cosimo::fmi::ModelDescription;
using ::cosimo::fmi::ParseModelDescriptionFile;
using ::cosimo::fmi::ParseModelDescriptionText;
using ::cosimo::fmi::ScalarVariable;
using ::cosimo::fmi::Unknown;
using ::cosimo::fmi::Variability;
using ::cosimo::fmi::VarType;
using ::cosimo::fmi::VarTypeName;

}  // namespace cosimo::worker::fmi
