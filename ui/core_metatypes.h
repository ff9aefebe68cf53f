#pragma once

#include <QMetaType>

#include "analysis/inspect_report.h"
#include "results/run_result.h"

// Lets core result types travel through queued signals and QSignalSpy.
Q_DECLARE_METATYPE(blasscope::core::InspectReport)
Q_DECLARE_METATYPE(blasscope::core::TensorReport)
Q_DECLARE_METATYPE(blasscope::core::RunResult)
