// RUN: xsplit-opt --split-input-file --verify-diagnostics %s | filecheck %s

func.func @shape(%a: vector<4xf16>, %c: vector<4xf32>) -> vector<4xf32> {
  %d = amdgpu.mfma 16x16x8 %a * %a + %c : vector<4xf16>, vector<4xf16>, vector<4xf32>
  func.return %d : vector<4xf32>
}
// CHECK: invalid.mlir:4:3: error: 'amdgpu.mfma' op 16x16x8 of f16 is not a known MFMA

// -----

func.func @a_fragment(%a: vector<8xf16>, %c: vector<4xf32>) -> vector<4xf32> {
  %d = amdgpu.mfma 16x16x16 %a * %a + %c : vector<8xf16>, vector<8xf16>, vector<4xf32>
  func.return %d : vector<4xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'amdgpu.mfma' op a lane's fragment of A and B for 16x16x16 is vector<4xf16>

// -----

func.func @c_fragment(%a: vector<4xf16>, %c: vector<16xf32>) -> vector<16xf32> {
  %d = amdgpu.mfma 16x16x16 %a * %a + %c : vector<4xf16>, vector<4xf16>, vector<16xf32>
  func.return %d : vector<16xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'amdgpu.mfma' op a lane's fragment of C for 16x16x16 is vector<4xf32>

// -----

func.func @mixed(%a: vector<4xf16>, %b: vector<4xbf16>, %c: vector<4xf32>) -> vector<4xf32> {
  %d = amdgpu.mfma 16x16x16 %a * %b + %c : vector<4xf16>, vector<4xbf16>, vector<4xf32>
  func.return %d : vector<4xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'amdgpu.mfma' op sourceA and sourceB must have one type

// -----

func.func @f32_vector(%a: vector<4xf32>, %c: vector<4xf32>) -> vector<4xf32> {
  %d = amdgpu.mfma 16x16x4 %a * %a + %c : vector<4xf32>, vector<4xf32>, vector<4xf32>
  func.return %d : vector<4xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'amdgpu.mfma' op a lane's fragment of A and B for 16x16x4 is f32

// -----

func.func @sched_group() {
  "amdgpu.sched_barrier"() <{opts = #rocdl.sched_group_mask<vmem>}> : () -> ()
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:61: error: expected one of [none, non_mem_non_sideeffect, valu, salu, mfma_wmma, all_vmem, vmem_read, vmem_write, all_ds, ds_read, ds_write, transcendental, ldsdma, all] for instruction type mask for scheduling barriers, got: vmem
