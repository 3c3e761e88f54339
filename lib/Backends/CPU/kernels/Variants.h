// For the entry points of Variants.def's rows: EMBER_ON_ARCH_<Arch>(...) keeps its argument only
// when compiling for that architecture, so the x86-64 library holds no NEON entry and the
// aarch64 one no AVX entry (their target attributes would not compile there). A file defines
// its entries as
//   #define KERNEL_VARIANT(Name, Arch, Features, MR, NV, Doc) \
//     EMBER_ON_ARCH_##Arch(MY_ENTRIES(Name, Features, MR, NV))
//   #include "Variants.def"
#ifndef EMBER_CPU_KERNELS_VARIANTS_H
#define EMBER_CPU_KERNELS_VARIANTS_H

#if defined(__x86_64__)
#define EMBER_ON_ARCH_x86_64(...) __VA_ARGS__
#define EMBER_ON_ARCH_aarch64(...)
#elif defined(__aarch64__)
#define EMBER_ON_ARCH_x86_64(...)
#define EMBER_ON_ARCH_aarch64(...) __VA_ARGS__
#else
#error "the kernel library is built for x86_64 and aarch64"
#endif

/// An entry compiled for its row's features (codegen keeps them when it links the entry).
#define EMBER_VARIANT_TARGET(FEATURES) __attribute__((target(FEATURES)))

#endif
