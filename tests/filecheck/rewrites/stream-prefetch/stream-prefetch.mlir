// RUN: xsplit-opt %s --split-input-file -p 'stream-prefetch{prefetch=on chunks=4}' 2> %t.err | filecheck %s
// RUN: filecheck %s --check-prefix=REMARK < %t.err
// RUN: xsplit-opt %s --split-input-file -p 'stream-prefetch{prefetch=none chunks=4}' | filecheck %s --check-prefix=NONE
// RUN: xsplit-opt %s --split-input-file -p 'stream-prefetch' 2>&1 | filecheck %s --check-prefix=AUTO
// RUN: xsplit-opt %s --split-input-file -p 'stream-prefetch{prefetch=on target=sm_80}' | filecheck %s --check-prefix=GPU
// RUN: xsplit-opt %s --split-input-file -p 'stream-prefetch{prefetch=on chunks=4 tile_rows=4}' 2>&1 | filecheck %s --check-prefix=BLOCK

// GPU-NOT: hal.executable.source
// GPU-NOT: memref.prefetch

// Three rows against a row-major 1021 x 256 B (K prime): 4 chunks of 256
// rows (the last 253, bounded by K), 2 x 4 workgroups of 128 columns, each
// two register tiles of 3 rows x 64 columns. Each row of B a step takes
// (two, then the odd one left) prefetches the tile's four 64-byte lines of
// B 32 rows ahead (clamped to K's last row), loads four vectors of B,
// broadcasts each row's element of A and adds 12 FMAs; the partials are
// merged into the init.
// CHECK-LABEL: hal.executable.source private @matmul_stream_dispatch
// CHECK:         hal.executable.export public @matmul_stream ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>)
// CHECK-DAG:       %[[X:.*]] = arith.constant 2 : index
// CHECK-DAG:       %[[Y:.*]] = arith.constant 1 : index
// CHECK-DAG:       %[[Z:.*]] = arith.constant 4 : index
// CHECK:           hal.return %[[X]], %[[Y]], %[[Z]] : index, index, index
// CHECK:         func.func @matmul_stream() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_codegen.no_pipeline workgroup_size = [1, 1, 1]>}
// CHECK:           %a = hal.interface.binding.subspan {{.*}} binding(0) {{.*}} flags(ReadOnly) : memref<3x1021xf32>
// CHECK:           %b = hal.interface.binding.subspan {{.*}} binding(1) {{.*}} flags(ReadOnly) : memref<1021x256xf32>
// CHECK:           %partials = hal.interface.binding.subspan {{.*}} binding(2) {{.*}} : memref<4x3x256xf32>
// CHECK:           %workgroup_id_z = hal.interface.workgroup.id[2] : index
// CHECK:           %[[CHUNK:.*]] = arith.constant 256 : index
// CHECK:           %[[START:.*]] = arith.muli %workgroup_id_z, %[[CHUNK]] : index
// CHECK:           %[[END0:.*]] = arith.addi %[[START]], %[[CHUNK]] : index
// CHECK:           %[[K:.*]] = arith.constant 1021 : index
// CHECK:           %[[END:.*]] = arith.minui %[[END0]], %[[K]] : index
// CHECK:           %[[LENGTH:.*]] = arith.subi %[[END]], %[[START]] : index
// CHECK:           %[[TWO:.*]] = arith.constant 2 : index
// CHECK:           %[[PAIRS:.*]] = arith.divui %[[LENGTH]], %[[TWO]] : index
// CHECK:           %[[EVEN:.*]] = arith.muli %[[PAIRS]], %[[TWO]] : index
// CHECK:           %[[WHOLE:.*]] = arith.addi %[[START]], %[[EVEN]] : index
// CHECK:           scf.for %tile = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:             %[[S0:[0-9]+]], %{{.*}} = scf.for %k = %[[START]] to %[[WHOLE]] step %{{.*}} iter_args(%{{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK:               %[[DIST:.*]] = arith.constant 32 : index
// CHECK:               %[[AHEAD0:.*]] = arith.addi %k, %[[DIST]] : index
// CHECK:               %[[LAST:.*]] = arith.constant 1020 : index
// CHECK:               %[[AHEAD:.*]] = arith.minui %[[AHEAD0]], %[[LAST]] : index
// CHECK-COUNT-4:       memref.prefetch %b[%[[AHEAD]], %{{.*}}], read, locality<2>, data : memref<1021x256xf32>
// CHECK-COUNT-4:       vector.load %b[%k, %{{.*}}] : memref<1021x256xf32>, vector<16xf32>
// CHECK:               memref.load %a[%{{.*}}, %k] : memref<3x1021xf32>
// CHECK-NEXT:          vector.broadcast %{{.*}} : f32 to vector<16xf32>
// CHECK-COUNT-4:       vector.fma
// CHECK:               memref.load %a
// CHECK-COUNT-4:       vector.fma
// CHECK:               memref.load %a
// CHECK-COUNT-4:       vector.fma
// CHECK:               %[[NEXT:.*]] = arith.addi %k, %{{.*}} : index
// CHECK:               %[[AHEAD1:.*]] = arith.minui %{{.*}}, %[[LAST]] : index
// CHECK-COUNT-4:       memref.prefetch %b[%[[AHEAD1]], %{{.*}}], read, locality<2>, data : memref<1021x256xf32>
// CHECK-COUNT-4:       vector.load %b[%[[NEXT]], %{{.*}}] : memref<1021x256xf32>, vector<16xf32>
// CHECK-COUNT-12:      vector.fma
// CHECK-NEXT:          scf.yield
// CHECK:             scf.for %k_1 = %[[WHOLE]] to %[[END]] step %{{.*}} iter_args(%{{[0-9]+}} = %[[S0]],
// CHECK-COUNT-4:       memref.prefetch
// CHECK-COUNT-4:       vector.load %b[%k_1, %{{.*}}]
// CHECK-COUNT-12:      vector.fma
// CHECK-NEXT:          scf.yield
// CHECK-COUNT-12:    vector.store %{{.*}}, %partials[%workgroup_id_z, %{{.*}}, %{{.*}}] : memref<4x3x256xf32>, vector<16xf32>
// CHECK-LABEL: func.func @matmul(
// CHECK:         %partials_init = tensor.empty() : tensor<4x3x256xf32>
// CHECK-NEXT:    %partials = flow.dispatch @matmul_stream_dispatch::@matmul_stream(%a, %b, %partials_init) : (tensor<3x1021xf32>, tensor<1021x256xf32>, tensor<4x3x256xf32>) -> %partials_init
// CHECK-NEXT:    %merged = linalg.reduce ins(%partials:tensor<4x3x256xf32>) outs(%c:tensor<3x256xf32>) dimensions = [0]  {xsplit.split_part = "merge"}
// CHECK:         func.return %merged : tensor<3x256xf32>
// REMARK: remark: stream-prefetch: 4 chunks of 256 rows of B, 2 x 4 workgroups of 3 x 128 columns, register tiles of 3 x 64, B prefetched 32 rows ahead
// NONE-LABEL: hal.executable.source private @matmul_stream_dispatch
// NONE-NOT:     memref.prefetch
// NONE:         vector.fma
// NONE-NOT:     memref.prefetch
// NONE-LABEL: func.func @matmul(
// The model's remarks come first (stderr), then the modules: the 3-, 6-
// and 13-row products are left to split-k, the 10-row one taken.
// AUTO: remark: stream-prefetch: left to split-k: the prefetching dispatch took 1.01x the CPU time of split-k's IREE tiles (4 rows, measured), not under 0.95x
// AUTO: remark: stream-prefetch: left to split-k: the prefetching dispatch took 0.99x the CPU time of split-k's IREE tiles (6 rows, measured), not under 0.95x
// AUTO: remark: stream-prefetch: {{.*}} chunks of {{.*}} rows of B, 1 x {{.*}} workgroups of 10 x 64 columns, register tiles of 10 x 32, B prefetched 32 rows ahead: the prefetching dispatch took 0.73x the CPU time of split-k's IREE tiles (12 rows, measured), under 0.95x
// AUTO: remark: stream-prefetch: left to split-k: the prefetching dispatch took 1.01x the CPU time of split-k's IREE tiles (16 rows, measured), not under 0.95x
// AUTO-NOT: hal.executable.source
// AUTO: linalg.matmul
// AUTO: hal.executable.source private @ten_rows_stream_dispatch
func.func @matmul(%a: tensor<3x1021xf32>, %b: tensor<1021x256xf32>, %c: tensor<3x256xf32>) -> tensor<3x256xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<3x1021xf32>, tensor<1021x256xf32>) outs(%c : tensor<3x256xf32>) -> tensor<3x256xf32>
  return %r : tensor<3x256xf32>
}

// -----

// Six rows: one register tile holds every row (6 x 64, 24 accumulators), so
// each row of B's strip is read once: per row of B four prefetches into L2
// (`locality<2>`), four loads, six broadcasts and 24 FMAs.
// CHECK-LABEL: func.func @six_rows_stream()
// CHECK:         scf.for %tile = %{{.*}} to %{{.*}} step %[[TILE:.*]] {
// CHECK:         scf.for %k = {{.*}} iter_args({{.*}}) -> ([[V:vector<16xf32>]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]]) {
// CHECK-COUNT-4:   memref.prefetch %b[%{{.*}}, %{{.*}}], read, locality<2>, data : memref<1021x128xf32>
// CHECK-COUNT-4:   vector.load %b[%k, %{{.*}}] : memref<1021x128xf32>, vector<16xf32>
// CHECK:           memref.load %a[%{{.*}}, %k] : memref<6x1021xf32>
// CHECK-COUNT-4:   vector.fma
// CHECK:           memref.load %a[%{{.*}}, %k] : memref<6x1021xf32>
// CHECK-COUNT-4:   vector.fma
// CHECK:           memref.load %a[%{{.*}}, %k] : memref<6x1021xf32>
// CHECK-COUNT-4:   vector.fma
// CHECK:           memref.load %a[%{{.*}}, %k] : memref<6x1021xf32>
// CHECK-COUNT-4:   vector.fma
// CHECK:           memref.load %a[%{{.*}}, %k] : memref<6x1021xf32>
// CHECK-COUNT-4:   vector.fma
// CHECK:           memref.load %a[%{{.*}}, %k] : memref<6x1021xf32>
// CHECK-COUNT-4:   vector.fma
// CHECK:           memref.prefetch
// CHECK:         scf.for %k_1 =
// CHECK-COUNT-24: vector.store %{{.*}}, %partials[%workgroup_id_z, %{{.*}}, %{{.*}}] : memref<4x6x128xf32>, vector<16xf32>
// CHECK-LABEL: func.func @six_rows(
// CHECK:         flow.dispatch @six_rows_stream_dispatch::@six_rows_stream
// REMARK: remark: stream-prefetch: 4 chunks of 256 rows of B, 1 x 4 workgroups of 6 x 128 columns, register tiles of 6 x 64, B prefetched 32 rows ahead
// With tiles of 4 rows (`tile_rows=4`): the partials start at zero, then
// each block of 32 rows of B passes a tile of rows 0-3 that prefetches it
// and a tile of rows 4-5 that reads it from L1, each tile's sums loaded
// from the partials before the block and stored after it.
// BLOCK: remark: stream-prefetch: 4 chunks of 256 rows of B, 1 x 4 workgroups of 6 x 128 columns, register tiles of 4 x 64 over blocks of 32 rows of B, B prefetched 32 rows ahead
// BLOCK-LABEL: func.func @six_rows_stream()
// BLOCK:         scf.for %tile =
// BLOCK-COUNT-24:  vector.store %{{.*}}, %partials
// BLOCK:           scf.for %block = %[[START:.*]] to %[[END:.*]] step %{{.*}} {
// BLOCK:             %[[BLOCK_END0:.*]] = arith.addi %block, %{{.*}} : index
// BLOCK:             %[[BLOCK_END:.*]] = arith.minui %[[BLOCK_END0]], %[[END]] : index
// BLOCK-COUNT-16:    vector.load %partials
// BLOCK:             scf.for %k = %block to %{{.*}} step %{{.*}} iter_args
// BLOCK-COUNT-4:       memref.prefetch %b{{.*}} locality<2>
// BLOCK:             scf.for %k_{{[0-9]+}} = %{{.*}} to %[[BLOCK_END]] step
// BLOCK-COUNT-16:    vector.store %{{.*}}, %partials
// BLOCK-COUNT-8:     vector.load %partials
// BLOCK-NOT:         memref.prefetch
// BLOCK:             scf.for %k_{{[0-9]+}} = %block to
// BLOCK-NOT:         memref.prefetch
// BLOCK:             scf.for %k_{{[0-9]+}} = %{{.*}} to %[[BLOCK_END]] step
// BLOCK-NOT:         memref.prefetch
// BLOCK-COUNT-8:     vector.store %{{.*}}, %partials
// BLOCK-NOT:         memref.prefetch
// BLOCK-LABEL: func.func @six_rows(
func.func @six_rows(%a: tensor<6x1021xf32>, %b: tensor<1021x128xf32>, %c: tensor<6x128xf32>) -> tensor<6x128xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<6x1021xf32>, tensor<1021x128xf32>) outs(%c : tensor<6x128xf32>) -> tensor<6x128xf32>
  return %r : tensor<6x128xf32>
}

// -----

// Ten rows: 10 x 32 tiles (20 accumulators), two lines of B a row.
// CHECK-LABEL: func.func @ten_rows_stream()
// CHECK:         scf.for %k = {{.*}} -> ([[V:vector<16xf32>]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]]) {
// CHECK-COUNT-2:   memref.prefetch %b[%{{.*}}, %{{.*}}], read, locality<2>, data : memref<1021x64xf32>
// CHECK-COUNT-2:   vector.load %b[%k, %{{.*}}] : memref<1021x64xf32>, vector<16xf32>
// CHECK-COUNT-20:  vector.fma
// REMARK: remark: stream-prefetch: 4 chunks of 256 rows of B, 1 x 4 workgroups of 10 x 64 columns, register tiles of 10 x 32, B prefetched 32 rows ahead
func.func @ten_rows(%a: tensor<10x1021xf32>, %b: tensor<1021x64xf32>, %c: tensor<10x64xf32>) -> tensor<10x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<10x1021xf32>, tensor<1021x64xf32>) outs(%c : tensor<10x64xf32>) -> tensor<10x64xf32>
  return %r : tensor<10x64xf32>
}

// -----

// Thirteen rows: 13 x 16 tiles, one line of B a row, prefetched into L1
// (`locality<3>`).
// CHECK-LABEL: func.func @thirteen_rows_stream()
// CHECK:         scf.for %k = {{.*}} -> ([[V:vector<16xf32>]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]], [[V]]) {
// CHECK:           memref.prefetch %b[%{{.*}}, %{{.*}}], read, locality<3>, data : memref<1021x64xf32>
// CHECK-NOT:       memref.prefetch
// CHECK:           vector.load %b[%k, %{{.*}}] : memref<1021x64xf32>, vector<16xf32>
// CHECK-COUNT-13:  vector.fma
// CHECK:           memref.prefetch %b[%{{.*}}, %{{.*}}], read, locality<3>, data
// REMARK: remark: stream-prefetch: 4 chunks of 256 rows of B, 1 x 4 workgroups of 13 x 64 columns, register tiles of 13 x 16, B prefetched 32 rows ahead
func.func @thirteen_rows(%a: tensor<13x1021xf32>, %b: tensor<1021x64xf32>, %c: tensor<13x64xf32>) -> tensor<13x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<13x1021xf32>, tensor<1021x64xf32>) outs(%c : tensor<13x64xf32>) -> tensor<13x64xf32>
  return %r : tensor<13x64xf32>
}

// -----

// Seventeen rows: over split-k's streaming tiles' 16; left as it is.
// CHECK-LABEL: func.func @seventeen_rows
// CHECK-NOT:     flow.dispatch
// CHECK:         linalg.matmul
func.func @seventeen_rows(%a: tensor<17x1000xf32>, %b: tensor<1000x128xf32>, %c: tensor<17x128xf32>) -> tensor<17x128xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<17x1000xf32>, tensor<1000x128xf32>) outs(%c : tensor<17x128xf32>) -> tensor<17x128xf32>
  return %r : tensor<17x128xf32>
}

// -----

// A vecmat: A is a vector of K, each chunk's partial a row of N. With one
// row the register tile is 1 x 128 (8 accumulators), its 8 lines of B
// prefetched.
// CHECK-LABEL: hal.executable.source private @vecmat_stream_dispatch
// CHECK:         %a = hal.interface.binding.subspan {{.*}} flags(ReadOnly) : memref<1021xf32>
// CHECK-COUNT-8:   memref.prefetch %b
// CHECK-NOT:       memref.prefetch
// CHECK-COUNT-8:   vector.load %b[%k, %{{.*}}] : memref<1021x128xf32>, vector<16xf32>
// CHECK:           memref.load %a[%k] : memref<1021xf32>
// CHECK-COUNT-8:   vector.fma
// CHECK-COUNT-8:   vector.store %{{.*}}, %partials[%workgroup_id_z, %{{.*}}] : memref<4x128xf32>, vector<16xf32>
// CHECK-NOT:       vector.store
// CHECK-LABEL: func.func @vecmat(
// CHECK:         %partials = flow.dispatch @vecmat_stream_dispatch::@vecmat_stream(%x, %w, %partials_init) : (tensor<1021xf32>, tensor<1021x128xf32>, tensor<4x128xf32>) -> %partials_init
// CHECK-NEXT:    %merged = linalg.reduce ins(%partials:tensor<4x128xf32>) outs(%y:tensor<128xf32>) dimensions = [0]
func.func @vecmat(%x: tensor<1021xf32>, %w: tensor<1021x128xf32>, %y: tensor<128xf32>) -> tensor<128xf32> {
  %r = linalg.vecmat ins(%x, %w : tensor<1021xf32>, tensor<1021x128xf32>) outs(%y : tensor<128xf32>) -> tensor<128xf32>
  return %r : tensor<128xf32>
}
