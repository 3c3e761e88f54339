#include "MLOps.h"

namespace ember {
void registerMLLabelEncoderOps(OpRegistry &) {}
} // namespace ember
