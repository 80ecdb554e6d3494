// The generated entry-point tables (gen::<lib>::Api, in gen/<lib>/<lib>_api.h), declared for the
// headers that only pass them by reference (the server's Backend and CallContext).
#pragma once

namespace rgpu::gen::cudart {
struct Api;
}
namespace rgpu::gen::cublas {
struct Api;
}
namespace rgpu::gen::nvml {
struct Api;
}
namespace rgpu::gen::cublasLt {
struct Api;
}
namespace rgpu::gen::cudnn {
struct Api;
}
namespace rgpu::gen::curand {
struct Api;
}
namespace rgpu::gen::cufft {
struct Api;
}
namespace rgpu::gen::cusparse {
struct Api;
}
namespace rgpu::gen::cusolver {
struct Api;
}
