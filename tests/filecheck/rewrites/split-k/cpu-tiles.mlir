// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=4 align=16 pad_m=8 cpu_tiles=true}' | filecheck %s
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=4 align=16 pad_m=8}' | filecheck %s --check-prefix=UNTILED

// UNTILED-NOT: compilation_info

// Each chunk's matmul takes IREE CPU tiles: a workgroup covers all M rows
// (20, padded to 24) and one register tile of columns (two vectors with
// AVX-512, one with AVX2); registers hold 8 rows of it, K steps by 1. So
// does the tail's aligned part, read in place (224 of its 232 rows); the 8
// rows past it, padded to 16, and the merge keep IREE's own choice.
// CHECK-LABEL: func.func @padded_rows
// CHECK:         scf.forall
// CHECK:           linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<24x256xf32>, tensor<256x40xf32>) outs(%{{.*}} : tensor<24x40xf32>) attrs =  {compilation_info = #iree_codegen.compilation_info<lowering_config = #iree_cpu.lowering_config<distribution = [24, [[COLS:8|32]], 0], vector_common_parallel = [8, [[COLS]], 0], vector_reduction = [0, 0, 1]>, translation_info = <pipeline = #iree_cpu.pipeline<DoubleTilingExpert>>>}
// CHECK:         } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
// CHECK:         %tail = linalg.generic {{.*}} ins(%a_tail, %b_tail : tensor<24x224xf32>, tensor<224x40xf32>) outs(%tail_init : tensor<24x40xf32>) attrs =  {xsplit.split_part = "tail", compilation_info = #iree_codegen.compilation_info<lowering_config = #iree_cpu.lowering_config<distribution = [24, [[COLS]], 0]
// CHECK-NOT:     compilation_info
// CHECK:         %tail_rest = linalg.generic {{.*}} ins(%a_tail_rest_padded, %b_tail_rest_padded : tensor<24x16xf32>, tensor<16x40xf32>)
// CHECK-NOT:     compilation_info
// CHECK:         return
func.func @padded_rows(%a: tensor<20x1000xf32>, %b: tensor<1000x40xf32>, %c: tensor<20x40xf32>) -> tensor<20x40xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<20x1000xf32>, tensor<1000x40xf32>) outs(%c : tensor<20x40xf32>) -> tensor<20x40xf32>
  func.return %0 : tensor<20x40xf32>
}

// -----

// A generic matmul with its loops in another order: the sizes follow the
// loops' roles (d0 = N, d1 = K, d2 = M). N = 64 holds more than one register
// tile of columns (32 with AVX-512, 8 with AVX2): a workgroup takes the
// widest strip of up to four that divides it, and K steps by 4.
// CHECK-LABEL: func.func @permuted_loops
// CHECK:         lowering_config = #iree_cpu.lowering_config<distribution = [{{32|64}}, 0, 48], vector_common_parallel = [{{8|32}}, 0, 8], vector_reduction = [0, 4, 0]>
func.func @permuted_loops(%a: tensor<48x640xf32>, %b: tensor<640x64xf32>, %c: tensor<48x64xf32>) -> tensor<48x64xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d1, d0)>, affine_map<(d0, d1, d2) -> (d2, d0)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : tensor<48x640xf32>, tensor<640x64xf32>) outs(%c : tensor<48x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<48x64xf32>
  func.return %0 : tensor<48x64xf32>
}

// -----

// Left to IREE: a matvec narrower than two register tiles, an N narrower
// than a register tile, f16 and a batch.
// CHECK-LABEL: func.func @left_to_iree
// CHECK-NOT:     compilation_info
// CHECK:         return
func.func @left_to_iree(%a1: tensor<1x1000xf32>, %b: tensor<1000x64xf32>, %c1: tensor<1x64xf32>,
                        %bn: tensor<1000x24xf32>, %c3: tensor<8x24xf32>, %a3: tensor<8x1000xf32>,
                        %ah: tensor<8x1000xf16>, %bh: tensor<1000x64xf16>, %ch: tensor<8x64xf16>,
                        %ab: tensor<2x8x1000xf32>, %bb: tensor<2x1000x64xf32>, %cb: tensor<2x8x64xf32>)
    -> (tensor<1x64xf32>, tensor<8x24xf32>, tensor<8x64xf16>, tensor<2x8x64xf32>) {
  %0 = linalg.matmul ins(%a1, %b : tensor<1x1000xf32>, tensor<1000x64xf32>) outs(%c1 : tensor<1x64xf32>) -> tensor<1x64xf32>
  %2 = linalg.matmul ins(%a3, %bn : tensor<8x1000xf32>, tensor<1000x24xf32>) outs(%c3 : tensor<8x24xf32>) -> tensor<8x24xf32>
  %3 = linalg.matmul ins(%ah, %bh : tensor<8x1000xf16>, tensor<1000x64xf16>) outs(%ch : tensor<8x64xf16>) -> tensor<8x64xf16>
  %4 = linalg.batch_matmul ins(%ab, %bb : tensor<2x8x1000xf32>, tensor<2x1000x64xf32>) outs(%cb : tensor<2x8x64xf32>) -> tensor<2x8x64xf32>
  func.return %0, %2, %3, %4 : tensor<1x64xf32>, tensor<8x24xf32>, tensor<8x64xf16>, tensor<2x8x64xf32>
}

// -----

// More than 128 rows: a workgroup takes 64 rows by four register tiles.
// CHECK-LABEL: func.func @tall
// CHECK:         lowering_config = #iree_cpu.lowering_config<distribution = [64, {{32|64}}, 0], vector_common_parallel = [8, {{8|32}}, 0], vector_reduction = [0, 0, 4]>
func.func @tall(%a: tensor<136x1000xf32>, %b: tensor<1000x64xf32>, %c: tensor<136x64xf32>) -> tensor<136x64xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<136x1000xf32>, tensor<1000x64xf32>) outs(%c : tensor<136x64xf32>) -> tensor<136x64xf32>
  func.return %0 : tensor<136x64xf32>
}

// -----

// B transposed (N x K, as linear layers hold weights): K is contiguous in
// both operands, so registers step it by a whole vector.
// CHECK-LABEL: func.func @transposed_b
// CHECK:         scf.forall
// CHECK:           linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]{{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x256xf32>, tensor<64x256xf32>) {{.*}}lowering_config = #iree_cpu.lowering_config<distribution = [8, 16, 0], vector_common_parallel = [8, [[LANES:8|16]], 0], vector_reduction = [0, 0, [[LANES]]]>
func.func @transposed_b(%a: tensor<8x1000xf32>, %bt: tensor<64x1000xf32>, %c: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %bt : tensor<8x1000xf32>, tensor<64x1000xf32>) outs(%c : tensor<8x64xf32>) -> tensor<8x64xf32>
  func.return %0 : tensor<8x64xf32>
}

// -----

// A decode step (M <= 4) streams B: two register tiles of N per workgroup,
// each as wide as half the register file holds for its rows (16
// accumulators of 16 lanes with AVX-512, 8 of 8 with AVX2), stepping K by 2.
// CHECK-LABEL: func.func @decode_streams_b
// CHECK:         lowering_config = #iree_cpu.lowering_config<distribution = [2, {{64|256}}, 0], vector_common_parallel = [2, {{32|128}}, 0], vector_reduction = [0, 0, 2]>
// UNTILED-LABEL: func.func @decode_streams_b
// UNTILED-NOT:   compilation_info
func.func @decode_streams_b(%a: tensor<2x1000xf32>, %b: tensor<1000x512xf32>, %c: tensor<2x512xf32>) -> tensor<2x512xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<2x1000xf32>, tensor<1000x512xf32>) outs(%c : tensor<2x512xf32>) -> tensor<2x512xf32>
  func.return %0 : tensor<2x512xf32>
}

// -----

// One row takes a kilobyte of each row of B a step with AVX-512 (256
// columns, the widest), four rows a quarter of it.
// CHECK-LABEL: func.func @decode_one_row
// CHECK:         lowering_config = #iree_cpu.lowering_config<distribution = [1, {{128|512}}, 0], vector_common_parallel = [1, {{64|256}}, 0], vector_reduction = [0, 0, 2]>
// CHECK-LABEL: func.func @decode_four_rows
// CHECK:         lowering_config = #iree_cpu.lowering_config<distribution = [4, {{32|128}}, 0], vector_common_parallel = [4, {{16|64}}, 0], vector_reduction = [0, 0, 2]>
func.func @decode_one_row(%a: tensor<1x1000xf32>, %b: tensor<1000x1024xf32>, %c: tensor<1x1024xf32>) -> tensor<1x1024xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<1x1000xf32>, tensor<1000x1024xf32>) outs(%c : tensor<1x1024xf32>) -> tensor<1x1024xf32>
  func.return %0 : tensor<1x1024xf32>
}
func.func @decode_four_rows(%a: tensor<4x1000xf32>, %b: tensor<1000x1024xf32>, %c: tensor<4x1024xf32>) -> tensor<4x1024xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<4x1000xf32>, tensor<1000x1024xf32>) outs(%c : tensor<4x1024xf32>) -> tensor<4x1024xf32>
  func.return %0 : tensor<4x1024xf32>
}

// -----

// 5 to 16 rows stream B too: 4 rows in registers, a workgroup every row
// by up to four register tiles that divide N, K by 4; the workgroup takes
// B's rows 32 at a time (`cache_reduction`), each block in L1 while the
// four register tiles along M walk it.
// CHECK-LABEL: func.func @sixteen_rows_in_blocks_of_b
// CHECK:         lowering_config = #iree_cpu.lowering_config<cache_reduction = [0, 0, 32], distribution = [16, {{64|256}}, 0], vector_common_parallel = [4, {{16|64}}, 0], vector_reduction = [0, 0, 4]>
func.func @sixteen_rows_in_blocks_of_b(%a: tensor<16x4096xf32>, %b: tensor<4096x256xf32>, %c: tensor<16x256xf32>) -> tensor<16x256xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<16x4096xf32>, tensor<4096x256xf32>) outs(%c : tensor<16x256xf32>) -> tensor<16x256xf32>
  return %0 : tensor<16x256xf32>
}

// -----

// An N that the register tile (32 columns with AVX-512, 8 with AVX2) does
// not divide: IREE would mask every workgroup's tile, so the largest
// multiple of it is split on its own, with the tiles, and the rest on its
// own (192 columns in strips of 64 with AVX-512, K by 4; 200 in strips of 8
// with AVX2, K by 1). Each chunk slices its columns straight from B, each
// piece's merge adds its columns of the init into a fresh tensor, and a
// concat joins them.
// CHECK-LABEL: func.func @odd_columns
// CHECK:         %[[INIT:.*]] = tensor.extract_slice %c[0, 0] [20, [[W:192|200]]] [1, 1]
// CHECK:         %[[FRESH:.*]] = linalg.fill ins(%zero : f32) outs(%{{.*}} : tensor<20x[[W]]xf32>)
// CHECK:         scf.forall
// CHECK:           tensor.extract_slice %b[%{{.*}}, 0] [256, [[W]]] [1, 1] : tensor<1000x201xf32> to tensor<256x[[W]]xf32>
// CHECK:           lowering_config = #iree_cpu.lowering_config<distribution = [24, {{64|8}}, 0], vector_common_parallel = [8, {{32|8}}, 0], vector_reduction = [0, 0, {{4|1}}]>
// CHECK:         %[[FIRST:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}}, %[[INIT]] : tensor<3x20x[[W]]xf32>, tensor<20x[[W]]xf32>, tensor<20x[[W]]xf32>, tensor<20x[[W]]xf32>) outs(%[[FRESH]] : tensor<20x[[W]]xf32>)
// CHECK:         tensor.extract_slice %c[0, [[W]]] [20, [[R:9|1]]] [1, 1]
// CHECK:         scf.forall
// CHECK:           tensor.extract_slice %b[%{{.*}}, [[W]]] [256, [[R]]] [1, 1] : tensor<1000x201xf32> to tensor<256x[[R]]xf32>
// CHECK:         %[[SECOND:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<20x[[R]]xf32>)
// CHECK:         %[[JOINED:.*]] = tensor.concat dim(1) %[[FIRST]], %[[SECOND]] : (tensor<20x[[W]]xf32>, tensor<20x[[R]]xf32>) -> tensor<20x201xf32>
// CHECK:         return %[[JOINED]]
// UNTILED-LABEL: func.func @odd_columns
// UNTILED-NOT:   tensor.concat
func.func @odd_columns(%a: tensor<20x1000xf32>, %b: tensor<1000x201xf32>, %c: tensor<20x201xf32>) -> tensor<20x201xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<20x1000xf32>, tensor<1000x201xf32>) outs(%c : tensor<20x201xf32>) -> tensor<20x201xf32>
  func.return %0 : tensor<20x201xf32>
}
